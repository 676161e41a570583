import path from "node:path";
import type * as z from "zod";
import type { Lang } from "../../contract/envelope";
import { ErrorCode } from "../../contract/errors";
import type { socketCommands, SocketCommand, SocketResults } from "../../contract/files";
import type { ShareLoginData } from "../../contract/share-files";
import type { AuthUser } from "../auth/tokens";
import { FerryError } from "../errors";
import type { Services } from "../services";
import type { ShareAccess } from "../shares/access";
import { STAGING_NAME } from "../storage/paths";
import { AtomicFileKvStore } from "../uploads/store";
import { createShareFiles, visitorPathOf } from "./share-files";
import type { CommandHandlers } from "./socket";
import { createShareThumbnails } from "./thumbnails";

/**
 * The file-server socket of a share-link visitor (docs/file-server.md, "Share visitors"): after
 * `login { shareToken }`, the socket's only space is the share. Every command checks the token
 * and its link again first; a link that is no longer usable ends the socket. A download link
 * allows list, tree, attributes and download; an invitation allows list, mkdir and commit.
 * Anything else answers 1008.
 */

const UPLOAD_ID = /^[0-9a-f]{32}$/;

type Args<C extends SocketCommand> = z.output<(typeof socketCommands)[C]>;

export interface ShareSession {
  access: ShareAccess;
  token: string;
  lang: Lang;
  /** The visitor's address as the file server sees it (for the owner's upload notice). */
  ip: string | null;
  /** Aborted when the visitor's socket closes (folder walks stop). */
  signal?: AbortSignal;
}

type Handler = (session: ShareSession, args: never) => Promise<unknown>;

/** The outcome of one command: its data, or the code of a link that is gone (the socket then closes). */
export type ShareOutcome = { data: unknown } | { gone: number };

export interface ShareSockets {
  login(token: string): Promise<ShareLoginData>;
  command(token: string, cmd: SocketCommand, args: unknown, context: { lang: Lang; ip: string | null; signal?: AbortSignal }): Promise<ShareOutcome>;
}

/** `commands` are the signed-in users' handlers: a visitor's commit runs the same one, on the owner's behalf and bound to the link. */
export function createShareSockets(services: Services, commands: CommandHandlers): ShareSockets {
  const files = createShareFiles(services);
  const thumbnails = createShareThumbnails(services);
  const access = services.shares.access;
  // The upload records (server/uploads/tus.ts keeps its store there), read to tell a repeated commit.
  const records = new AtomicFileKvStore(path.join(services.spaces.root, STAGING_NAME, "tus"));

  /** Commits a visitor's upload as its link owner would (space, quota, hash), then notifies the owner. */
  async function commit(session: ShareSession, args: Args<"commit">): Promise<SocketResults["commit"]> {
    const userCommit = commands.commit;
    if (!userCommit) throw new FerryError("FeatureNotSupported", { cmd: "commit" });
    const { access: a } = session;
    const row = await services.db.kysely.selectFrom("users").select(["account", "role", "account_type", "permission"]).where("id", "=", a.ownerId).executeTakeFirst();
    if (!row) throw new FerryError("PermissionDenied");
    const owner: AuthUser = { id: a.ownerId, account: row.account, role: row.role as AuthUser["role"], accountType: row.account_type, permission: row.permission };
    // A repeated commit (a client that lost the reply) answers the first result; the owner hears of the file once.
    const repeated = UPLOAD_ID.test(args.uploadId) && !!(await records.get(args.uploadId))?.committed;
    const placed = await userCommit({ user: owner, sessionId: "", lang: session.lang, shareLinkId: a.linkId, address: session.ip }, args);
    const visible = visitorPathOf(a, placed.path);
    if (!repeated) await services.shares.recordShareUpload({ access: a, files: [visible], visitorAddress: session.ip });
    // A file drop lists it for this visit only.
    await files.recordOwn(a, session.token, placed.path);
    return { ...placed, path: visible };
  }

  const handlers: Record<ShareAccess["kind"], Partial<Record<SocketCommand, Handler>>> = {
    download: {
      list: (s: ShareSession, a: Args<"list">) => files.list(s.access, a.path, s.token),
      tree: (s: ShareSession, a: Args<"tree">) => files.tree(s.access, a.path),
      attributes: (s: ShareSession, a: Args<"attributes">) => files.attributes(s.access, a.paths, s.signal),
      download: (s: ShareSession, a: Args<"download">) => files.download(s.access, s.token, a.paths),
      thumbnails: (s: ShareSession, a: Args<"thumbnails">) => thumbnails(s.access, s.token, a.path),
    },
    upload: {
      list: (s: ShareSession, a: Args<"list">) => files.list(s.access, a.path, s.token),
      mkdir: (s: ShareSession, a: Args<"mkdir">) => files.mkdir(s.access, s.token, a.path, a.name),
      commit,
    },
  };

  return {
    async login(token) {
      const checked = await access.checkToken(token);
      if ("error" in checked) throw new FerryError(checked.error);
      const a = checked.access;
      return { account: a.ownerAccount, shareId: a.linkId, shareUrlType: a.kind === "download" ? 1 : 0, shareAllowDownload: a.allowDownload ? 1 : 0 };
    },

    async command(token, cmd, args, { lang, ip, signal }) {
      const checked = await access.checkToken(token);
      if ("error" in checked) return { gone: ErrorCode[checked.error] };
      const handler = handlers[checked.access.kind][cmd];
      // The share is the visitor's only space: group spaces and every other command are refused.
      const groupId = (args as { groupId?: number }).groupId;
      if (!handler || (groupId !== undefined && groupId !== 0)) throw new FerryError("PermissionDenied");
      return { data: await handler({ access: checked.access, token, lang, ip, signal }, args as never) };
    },
  };
}
