import { ErrorCode } from "../../contract/errors";
import type { AuthContext } from "../auth/tokens";
import { FerryError } from "../errors";
import type { CommandHandlers, SocketSession } from "../fileserver/socket";
import type { RouteDef } from "../http/route";
import type { OperationEntry, Recorder } from "./recorder";

/*
 * Where the operation log meets the actions (docs/admin-api.md, "Logs"): the REST routes and the
 * file server's socket commands are wrapped once here, so every path that changes something is
 * logged with who, from where, what and the result, and no route or command has to remember it.
 * Sign-ins are logged by the auth service (it knows the account of a failed one); transfers and
 * previews by the file server, where they really end.
 */

type Log = Pick<Recorder, "recordOperation">;

const codeOf = (error: unknown) => (error instanceof FerryError ? error.code : ErrorCode.UnknownException);

/** A short, safe text of a request value: strings and numbers only, never a nested object's secrets. */
function text(value: unknown): string {
  if (typeof value === "string" || typeof value === "number") return String(value);
  if (Array.isArray(value)) return value.filter((v) => typeof v === "string" || typeof v === "number").join(", ");
  return "";
}

/** Fields that name what an admin change is about, in order of preference. */
const NAMING_FIELDS = ["account", "name", "groupName", "title", "ids", "id", "shareUrlList", "urls", "userIds"];

function targetOf(params: unknown, body: unknown): string {
  const p = params && typeof params === "object" ? Object.values(params).map(text).filter(Boolean) : [];
  if (p.length > 0) return p.join("/");
  if (body && typeof body === "object") {
    for (const field of NAMING_FIELDS) {
      const t = text((body as Record<string, unknown>)[field]);
      if (t) return t;
    }
  }
  return "";
}

/** The fields a change sent (names only: values may be passwords or secrets). */
const fieldsOf = (body: unknown) => (body && typeof body === "object" && !Array.isArray(body) ? Object.keys(body).slice(0, 40).join(",") : "");

/** The operation kind of a REST call, or null when it is not logged here (reads, sign-in). */
export function routeKind(method: RouteDef["method"], url: string): string | null {
  if (method === "GET") return null;
  if (url.startsWith("/api/admin/settings/")) return "setting_change";
  if (url.startsWith("/api/admin/")) return "admin_change";
  switch (url) {
    case "/api/user/logout":
      return "signout";
    case "/api/user/password/update":
      return "password_change";
    case "/api/share/link/create":
      return "share_create";
    case "/api/share/link/cancel":
      return "share_cancel";
    case "/api/share/link/delete":
      return "share_delete";
    case "/api/share/link/unbind":
      return "share_unbind";
    default:
      return null;
  }
}

const who = (auth: AuthContext | null): Pick<OperationEntry, "userId" | "account" | "accountType" | "role"> =>
  auth ? { userId: auth.user.id, account: auth.user.account, accountType: auth.user.accountType, role: auth.user.role === "admin" ? "admin" : "user" } : { userId: null, role: "visitor" };

/** Every route that changes something, logged with its outcome. */
export function withRouteLog(log: Log, routes: RouteDef[]): RouteDef[] {
  return routes.map((def) => {
    const kind = routeKind(def.method, def.url);
    if (!kind) return def;
    const handler: RouteDef["handler"] = async (ctx) => {
      const entry = () => ({
        ...who(ctx.auth),
        address: ctx.ip,
        kind,
        target: targetOf(ctx.params, ctx.body),
        detail: `${def.method} ${def.url}${fieldsOf(ctx.body) ? ` ${fieldsOf(ctx.body)}` : ""}`,
      });
      try {
        const data = await def.handler(ctx);
        // A new link is named by its id, which only the answer has.
        const made = kind === "share_create" && data && typeof data === "object" ? text((data as { shareId?: unknown }).shareId) : "";
        log.recordOperation({ ...entry(), ...(made ? { target: made, detail: `${def.method} ${def.url} ${text((ctx.body as { shareFiles?: unknown }).shareFiles) || text((ctx.body as { shareServerPath?: unknown }).shareServerPath)}` } : {}) });
        return data;
      } catch (error) {
        log.recordOperation({ ...entry(), result: "failed", code: codeOf(error) });
        throw error;
      }
    };
    return { ...def, handler };
  });
}

/** Socket commands that change something, and the target each names. */
const COMMAND_KINDS: Partial<Record<keyof CommandHandlers, (args: Record<string, unknown>) => { target: string; detail?: string }>> = {
  mkdir: (a) => ({ target: joinPath(text(a.path), text(a.name)) }),
  rename: (a) => ({ target: text(a.path), detail: `→ ${text(a.newName)}` }),
  move: (a) => ({ target: text(a.paths), detail: `→ ${text(a.target)}` }),
  copy: (a) => ({ target: text(a.paths), detail: `→ ${text(a.target)}` }),
  remove: (a) => ({ target: text(a.paths) }),
  commit: () => ({ target: "" }),
};
const KIND_NAMES: Record<string, string> = { remove: "delete", commit: "upload" };

const joinPath = (parent: string, name: string) => (parent.endsWith("/") ? `${parent}${name}` : `${parent}/${name}`);

/** The space an action was in, as the log shows it: "group 3:" before a group space's path. */
const spaceOf = (args: Record<string, unknown>) => (typeof args.groupId === "number" && args.groupId > 0 ? `group ${args.groupId}: ` : "");

/**
 * The socket's changing commands, logged with their outcome. A visitor's commit through an
 * invitation runs the owner's commit with `shareLinkId`: it is logged as the visitor's
 * `invitation_use` (role visitor, the link as detail).
 */
export function withCommandLog(log: Log, commands: CommandHandlers): CommandHandlers {
  const wrapped: CommandHandlers = { ...commands };
  for (const [cmd, describe] of Object.entries(COMMAND_KINDS) as [keyof CommandHandlers, (a: Record<string, unknown>) => { target: string; detail?: string }][]) {
    const original = commands[cmd] as ((session: SocketSession, args: never) => Promise<unknown>) | undefined;
    if (!original) continue;
    const handler = async (session: SocketSession, args: never) => {
      const a = args as Record<string, unknown>;
      const { target, detail } = describe(a);
      const visitor = session.shareLinkId !== undefined;
      const base: OperationEntry = visitor
        ? { userId: null, account: "", role: "visitor", address: session.address ?? null, kind: cmd === "commit" ? "invitation_use" : (KIND_NAMES[cmd] ?? cmd), detail: `link ${session.shareLinkId}` }
        : { userId: session.user.id, account: session.user.account, accountType: session.user.accountType, role: session.user.role === "admin" ? "admin" : "user", address: session.address ?? null, kind: KIND_NAMES[cmd] ?? cmd, detail };
      try {
        const data = await original(session, args);
        const placed = cmd === "commit" ? text((data as { path?: unknown }).path) : "";
        // move/copy/remove answer per path: the ones that failed make the entry failed, with the first code.
        const failed = (data as { failed?: { path: string; code: number }[] } | null)?.failed ?? [];
        log.recordOperation({
          ...base,
          target: `${spaceOf(a)}${placed || target}`,
          ...(failed.length > 0 ? { result: "failed", code: failed[0]!.code, detail: `${base.detail ?? ""} failed: ${failed.map((f) => f.path).join(", ")}`.trim() } : {}),
        });
        return data;
      } catch (error) {
        log.recordOperation({ ...base, target: `${spaceOf(a)}${target}`, result: "failed", code: codeOf(error) });
        throw error;
      }
    };
    (wrapped as Record<string, unknown>)[cmd] = handler;
  }
  return wrapped;
}
