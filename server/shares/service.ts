import { createHash, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import { type SelectQueryBuilder, sql } from "kysely";
import type * as z from "zod";
import type { Lang } from "../../contract/envelope";
import { ErrorCode, type ErrorName } from "../../contract/errors";
import { hasPermission, Permission } from "../../contract/permissions";
import {
  aliasProblem,
  isEmail,
  normaliseSharePassword,
  SHARE_ATTEMPT_WINDOW_SECONDS,
  SHARE_ATTEMPTS_PER_ADDRESS,
  SHARE_ATTEMPTS_PER_LINK,
  SHARE_EMAIL_MAX_RECIPIENTS,
  SHARE_MAX_FILES,
  SHARE_PASSWORD_MAX,
  SHARE_TOKEN_TTL_SECONDS,
  shareIdOf,
  ShareSrcType,
  ShareStatus,
  ShareUrlType,
  splitEmails,
  type shareCreateBody,
  type shareInfoQuery,
  type ShareListItem,
  type shareListQuery,
  type shareVerifyBody,
  type AdminShareItem,
  type adminShareDownloadsQuery,
  type adminShareListQuery,
} from "../../contract/share";
import type { AuthUser } from "../auth/tokens";
import { type Clock, toSeconds } from "../clock";
import type { Db } from "../db/connect";
import { createSettings } from "../settings/service";
import type { Database } from "../db/schema";
import { escapeLike } from "../db/like";
import { FerryError, fail } from "../errors";
import type { SecretBox } from "../mail/secret";
import { checkAllowed, type Spaces } from "../files/spaces";
import type { ShareMailer } from "../mail/share-mail";
import { baseName, commonParent, isUnder, normaliseUserPath } from "../storage/paths";
import { storageError } from "../storage/storage";
import { createShareAccess, type LinkRow, linkProblem, shareUrlOf, type ShareAccess, tokenDigest, visitorToOwnerPath } from "./access";
import { type AttemptKey, createShareAttempts } from "./attempts";
import { createRateLimits } from "../limits/rate-limits";

export interface ShareLog {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface ShareDeps {
  db: Db;
  clock: Clock;
  spaces: Spaces;
  /** Null until a mailer is wired: e-mail options are then refused with EmailNotConfigured. */
  mailer: ShareMailer | null;
  /** The web's origins (FERRY_WEB_ORIGINS); the first is the share base URL when a request names none. */
  webOrigins: string[];
  /** The web's port (FERRY_WEB_PORT): without FERRY_WEB_ORIGINS the web is http://localhost:<port>, the origin the engine was started with. */
  webPort: number;
  /** Seals share passwords with the engine secret (server/mail/secret.ts); called when first needed. */
  passwordBox: () => SecretBox;
  /** Per-address limits on anonymous calls (FERRY_SHARE_*). */
  limits: { windowSeconds: number; tokensPerAddress: number; liveTokens: number; countsPerAddress: number };
  log?: ShareLog;
}

/** Who sees a link's password in a list: its owner; nobody else (the administrator included). */
type PasswordViewer = "owner" | "other";

const WINDOW_MS = SHARE_ATTEMPT_WINDOW_SECONDS * 1000;
const digest = (text: string) => createHash("sha256").update(text, "utf8").digest();
/** Compares two passwords in constant time (digests have equal length whatever the inputs). */
const samePassword = (a: string, b: string) => timingSafeEqual(digest(a), digest(b));

function childOf(dir: string, name: string) {
  return dir === "/" ? `/${name}` : `${dir}/${name}`;
}

/** `<scheme>://<host>[:port][/prefix]`, without credentials, query, fragment or trailing slash. */
function checkedBaseUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return fail("ShareBaseUrlInvalid");
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.username || url.password || url.search || url.hash || /[\s<>"'`]/.test(text)) {
    return fail("ShareBaseUrlInvalid");
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}


/** Loopback names are one host: a page on localhost:3000 may be opened as 127.0.0.1:3000 too. */
const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/;


function statusOf(link: Pick<LinkRow, "status" | "expire_at" | "disabled_at">, now: number): 1 | 2 | 3 {
  if (link.status === ShareStatus.Canceled || link.disabled_at > 0) return 3;
  if (link.expire_at > 0 && link.expire_at <= now) return 2;
  return 1;
}

const ALIAS_CODES: Record<string, ErrorName> = {
  error1: "ShareAliasNotAllowed",
  error2: "ShareAliasNotAllowed",
  error3: "ShareAliasFormat",
  error4: "ShareAliasConflict",
  error5: "ShareAliasDuplicate",
};

export function createShares(deps: ShareDeps) {
  const { db, clock, spaces } = deps;
  const k = db.kysely;
  const access = createShareAccess(db, clock);
  const attempts = createShareAttempts(db, clock, WINDOW_MS);
  const rates = createRateLimits(db, clock);
  const rateWindowMs = deps.limits.windowSeconds * 1000;
  /** The rate key of a client address; calls whose address is unknown share one. */
  const addressKey = (ip: string | null) => (ip ?? "unknown").slice(0, 64);

  // FERRY_WEB_ORIGINS in the form checkedBaseUrl gives, so that "https://x:443/" equals "https://x".
  const configured = deps.webOrigins.flatMap((o) => {
    try {
      return [checkedBaseUrl(o)];
    } catch {
      return [];
    }
  });
  // Unset: the web the engine was started with, http://localhost:<FERRY_WEB_PORT> (npm start runs both on one machine).
  const webOrigins = configured.length > 0 ? configured : [`http://localhost:${deps.webPort}`];
  const isDefaultWeb = (base: string) => {
    if (configured.length > 0) return false;
    const url = new URL(base);
    return url.protocol === "http:" && url.port === String(deps.webPort) && LOOPBACK.test(url.hostname) && url.pathname === "/";
  };

  /**
   * The base URL a new link is built on (docs/shares.md, "Share base URL"): one of FERRY_WEB_ORIGINS
   * (none given: the first); unset, the engine's own web, http://localhost:<FERRY_WEB_PORT> (or the
   * same port on another loopback name). Never the request's Host, X-Forwarded-Host or Origin.
   */
  function shareBaseUrl(text: string): string {
    if (text === "") return webOrigins[0]!;
    const base = checkedBaseUrl(text);
    if (!webOrigins.includes(base) && !isDefaultWeb(base)) fail("ShareBaseUrlNotAllowed");
    return base;
  }

  /** The sealed form of a share password, bound to its link. */
  const sealPassword = (linkId: string, password: string) => (password === "" ? "" : deps.passwordBox().seal(password, `share:${linkId}`));
  /** The password of a link ("" when none, or when it cannot be opened with this engine's secret). */
  function passwordOf(link: Pick<LinkRow, "id" | "password" | "password_enc">): string {
    if (link.password_enc) return deps.passwordBox().open(link.password_enc, `share:${link.id}`) ?? "";
    return link.password;
  }

  const attemptKeys = (linkId: string, ip: string | null): AttemptKey[] => [
    { key: `share:${linkId}`, max: SHARE_ATTEMPTS_PER_LINK },
    ...(ip ? [{ key: `share-ip:${ip}`, max: SHARE_ATTEMPTS_PER_ADDRESS }] : []),
  ];
  const throttledRequests = (until: number) =>
    fail("ShareRequestsThrottled", { retryAfter: Math.ceil((until - clock.now()) / 1000) }, { minutes: Math.max(1, Math.ceil((until - clock.now()) / 60_000)) });

  /** Deletes the oldest tokens of one link and address beyond FERRY_SHARE_LIVE_TOKENS; `newest` (just issued) always stays. */
  async function keepNewestTokens(linkId: string, clientIp: string, newest: string) {
    const rows = await k
      .selectFrom("share_tokens")
      .select("token_hash")
      .where("link_id", "=", linkId)
      .where("client_ip", "=", clientIp)
      .where("token_hash", "!=", newest)
      .orderBy("created_at", "desc")
      .orderBy("token_hash", "desc")
      .execute();
    const extra = rows.slice(Math.max(0, deps.limits.liveTokens - 1)).map((r) => r.token_hash);
    if (extra.length > 0) await k.deleteFrom("share_tokens").where("token_hash", "in", extra).execute();
  }

  const throttled = (until: number) => fail("ShareAttemptsLocked", { retryAfter: Math.ceil((until - clock.now()) / 1000) }, { minutes: Math.max(1, Math.ceil((until - clock.now()) / 60_000)) });

  /** The link and its owner for a public call, or the link's error. */
  async function usableLink(ref: string) {
    const id = shareIdOf(ref);
    if (!id) return fail("ShareUrlNotExist");
    const link = await k.selectFrom("share_links").selectAll().where("id", "=", id).executeTakeFirst();
    const owner = link ? await k.selectFrom("users").select(["account", "locked", "permission"]).where("id", "=", link.owner_id).executeTakeFirst() : undefined;
    const problem = linkProblem(link, owner, clock.now());
    if (problem) fail(problem);
    return { link: link!, owner: owner! };
  }

  /** Checks a share password; a wrong one counts against the link and the address (attempts.ts). */
  async function checkPassword(link: LinkRow, given: string, ip: string | null) {
    const keys = attemptKeys(link.id, ip);
    const until = await attempts.lockedUntil(keys);
    if (until > 0) throttled(until);
    const stored = passwordOf(link);
    const same = samePassword(normaliseSharePassword(given), stored);
    if (same && stored !== "") return;
    const outcome = await attempts.recordFailure(keys);
    if (outcome.throttled) return throttled(outcome.lockedUntil);
    fail(
      "WrongPassword",
      { wrongTimes: outcome.failures, maxLockTimes: outcome.max, lockPeriod: SHARE_ATTEMPT_WINDOW_SECONDS, remaining: outcome.max - outcome.failures },
      { wrongTimes: outcome.failures, maxLockTimes: outcome.max, lockPeriod: SHARE_ATTEMPT_WINDOW_SECONDS / 60 },
    );
  }

  /** Binds a link with bindSwitch to `fingerprint` when it is free; LinkBound when another device holds it. */
  async function bindDevice(link: LinkRow, fingerprint: string | undefined) {
    if (!link.bind_switch) return;
    if (!fingerprint) return fail("LinkBound");
    if (link.bound_device === fingerprint) return;
    if (link.bound_device) fail("LinkBound");
    await k.updateTable("share_links").set({ bound_device: fingerprint }).where("id", "=", link.id).where("bound_device", "=", "").execute();
    const now = await k.selectFrom("share_links").select("bound_device").where("id", "=", link.id).executeTakeFirst();
    if (now?.bound_device !== fingerprint) fail("LinkBound");
    link.bound_device = fingerprint;
  }

  async function mailFailure(err: unknown, what: string, linkId: string): Promise<number> {
    deps.log?.error({ err, linkId }, what);
    return err instanceof FerryError ? err.code : ErrorCode.ConnectFailed;
  }

  /** The owner's ids among `refs` (any owner's for the administrator, `null`); another user's links and unknown ids are left out. */
  async function ownIds(userId: number | null, refs: string[]): Promise<string[]> {
    const ids = [...new Set(refs.map(shareIdOf).filter((x): x is string => x !== null))];
    if (ids.length === 0) return [];
    let query = k.selectFrom("share_links").select("id").where("id", "in", ids);
    if (userId !== null) query = query.where("owner_id", "=", userId);
    return (await query.execute()).map((r) => r.id);
  }

  /** List rows of the given links, in the order of `rows`. */
  async function listItems(rows: LinkRow[], now: number, viewer: PasswordViewer): Promise<ShareListItem[]> {
    const ids = rows.map((r) => r.id);
    const items = ids.length ? await k.selectFrom("share_items").selectAll().where("link_id", "in", ids).orderBy("link_id").orderBy("position").execute() : [];
    const counts = ids.length
      ? await k.selectFrom("share_downloads").select("link_id").select((eb) => eb.fn.countAll<number>().as("n")).where("link_id", "in", ids).groupBy("link_id").execute()
      : [];
    const byLink = new Map<string, typeof items>();
    for (const item of items) {
      const own = byLink.get(item.link_id);
      if (own) own.push(item);
      else byLink.set(item.link_id, [item]);
    }
    return rows.map((r) => {
      const own = byLink.get(r.id) ?? [];
      return {
        shareId: r.id,
        shareLink: shareUrlOf(r),
        sharePassword: viewer === "owner" ? passwordOf(r) : "",
        needPassword: r.need_password === 1,
        filename: own.map((i) => i.alias || i.name),
        shareFiles: own.map((i) => i.path),
        shareServerPath: r.server_path,
        type: r.src_type as 0 | 1 | 2,
        shareUrlType: r.kind as 0 | 1,
        shareAllowDownload: r.allow_download as 0 | 1,
        shareCreateTime: toSeconds(r.created_at),
        shareExpireTime: toSeconds(r.expire_at),
        shareEmail: r.share_email,
        notifyEmail: r.notify_email as 0 | 1,
        shareStatus: statusOf(r, now),
        bindSwitch: r.bind_switch as 0 | 1,
        bindDevice: r.bound_device,
        shareShowContents: r.show_contents as 0 | 1,
        downloadCount: Number(counts.find((c) => c.link_id === r.id)?.n ?? 0),
      };
    });
  }

  /** A list row as the administrator sees it: with its owner and whether the administrator disabled it. */
  const adminItem = (item: ShareListItem, row: LinkRow & { account: string; locked: number }): AdminShareItem => ({
    ...item,
    userId: row.owner_id,
    account: row.account,
    ownerLocked: row.locked === 1,
    disabled: row.disabled_at > 0,
    disabledTime: toSeconds(row.disabled_at),
  });

  /** The latest 100 downloads of a link. */
  async function downloadRecords(id: string) {
    const rows = await k.selectFrom("share_downloads").selectAll().where("link_id", "=", id).orderBy("created_at", "desc").orderBy("id", "desc").limit(100).execute();
    return rows.map((r) => ({ ip: r.client_ip, files: JSON.parse(r.files) as string[], time: toSeconds(r.created_at) }));
  }

  /** Link filters of the owner's and the administrator's lists (status 2 is computed from the expiry). */
  const linkQuery = () => k.selectFrom("share_links").innerJoin("users", "users.id", "share_links.owner_id");
  type LinkQuery = ReturnType<typeof linkQuery>;

  /** `paths`: the text matches the items' paths and an invitation's directory too (the administrator's search). */
  function filtered(base: LinkQuery, q: { shareStatus?: 1 | 2 | 3; StartTime?: number; EndTime?: number; name?: string }, now: number, paths = false): LinkQuery {
    let query = base;
    // Status 3 is cancelled by the owner or disabled by the administrator; 1 and 2 are neither.
    if (q.shareStatus === 3) query = query.where((eb) => eb.or([eb("share_links.status", "=", 3), eb("share_links.disabled_at", ">", 0)]));
    else if (q.shareStatus === 2)
      query = query.where("share_links.status", "=", 1).where("share_links.disabled_at", "=", 0).where("share_links.expire_at", ">", 0).where("share_links.expire_at", "<=", now);
    else if (q.shareStatus === 1)
      query = query
        .where("share_links.status", "=", 1)
        .where("share_links.disabled_at", "=", 0)
        .where((eb) => eb.or([eb("share_links.expire_at", "=", 0), eb("share_links.expire_at", ">", now)]));
    if (q.StartTime !== undefined) query = query.where("share_links.created_at", ">=", q.StartTime * 1000);
    if (q.EndTime !== undefined) query = query.where("share_links.created_at", "<", (q.EndTime + 1) * 1000);
    if (q.name) {
      const pattern = `%${escapeLike(q.name.toLowerCase())}%`;
      const like = (column: string) => sql<boolean>`lower(${sql.ref(column)}) like ${pattern} escape '!'`;
      query = query.where((eb) => {
        const items = eb.exists(
          eb
            .selectFrom("share_items")
            .select("share_items.position")
            .whereRef("share_items.link_id", "=", "share_links.id")
            .where((e) => e.or([like("share_items.name"), like("share_items.alias"), ...(paths ? [like("share_items.path")] : [])])),
        );
        return paths ? eb.or([items, eb.and([eb("share_links.kind", "=", ShareUrlType.Upload), like("share_links.server_path")])]) : items;
      });
    }
    return query;
  }

  /** Orders a list: 1 name, 2 create time, 3 expire time ("never" after every date), 4 status, 5 owner account, 6 downloads; then create time and id. */
  function ordered<O extends LinkRow>(query: SelectQueryBuilder<Database, "share_links" | "users", O>, orderBy: number, dir: "asc" | "desc", now: number) {
    let q = query;
    const statusExpr = sql<number>`case when ${sql.ref("share_links.status")} = 3 or ${sql.ref("share_links.disabled_at")} > 0 then 3 when ${sql.ref("share_links.expire_at")} > 0 and ${sql.ref("share_links.expire_at")} <= ${now} then 2 else 1 end`;
    if (orderBy === 1) q = q.orderBy("share_links.name_key", dir);
    else if (orderBy === 3) q = q.orderBy(sql`case when ${sql.ref("share_links.expire_at")} = 0 then 1 else 0 end`, dir).orderBy("share_links.expire_at", dir);
    else if (orderBy === 4) q = q.orderBy(statusExpr, dir);
    else if (orderBy === 5) q = q.orderBy("users.account_key", dir);
    else if (orderBy === 6) q = q.orderBy(sql`(select count(*) from share_downloads where share_downloads.link_id = ${sql.ref("share_links.id")})`, dir);
    return q.orderBy("share_links.created_at", dir).orderBy("share_links.id", dir);
  }

  async function removeLinks(userId: number | null, refs: string[]) {
    const ids = await ownIds(userId, refs);
    if (ids.length === 0) return { affected: 0 };
    const result = await k.transaction().execute(async (tx) => {
      await tx.deleteFrom("share_tokens").where("link_id", "in", ids).execute();
      await tx.deleteFrom("share_items").where("link_id", "in", ids).execute();
      await tx.deleteFrom("share_downloads").where("link_id", "in", ids).execute();
      let del = tx.deleteFrom("share_links").where("id", "in", ids);
      if (userId !== null) del = del.where("owner_id", "=", userId);
      return del.executeTakeFirst();
    });
    await attempts.forget(ids.map((id) => `share:${id}`));
    return { affected: Number(result.numDeletedRows) };
  }

  async function cancelLinks(userId: number | null, refs: string[]) {
    const ids = await ownIds(userId, refs);
    if (ids.length === 0) return { affected: 0 };
    const now = clock.now();
    // An expired link is over already: cancelling it would only rewrite its status (the list would
    // show "Canceled" for a link that expired), so it is left as it is, like a cancelled one.
    let update = k
      .updateTable("share_links")
      .set({ status: ShareStatus.Canceled, cancelled_at: now })
      .where("id", "in", ids)
      .where("status", "!=", ShareStatus.Canceled)
      .where((eb) => eb.or([eb("expire_at", "=", 0), eb("expire_at", ">", now)]));
    if (userId !== null) update = update.where("owner_id", "=", userId);
    const result = await update.executeTakeFirst();
    return { affected: Number(result.numUpdatedRows) };
  }

  /** Frees the devices bound to `ids` (links without bind-first-device are left alone); returns how many were bound. */
  async function unbindLinks(userId: number | null, ids: string[]): Promise<number> {
    let select = k.selectFrom("share_links").select(["id", "bound_device"]).where("id", "in", ids).where("bind_switch", "=", 1);
    if (userId !== null) select = select.where("owner_id", "=", userId);
    const binding = await select.execute();
    if (binding.length === 0) return 0;
    const bindingIds = binding.map((r) => r.id);
    await k.updateTable("share_links").set({ bound_device: "" }).where("id", "in", bindingIds).execute();
    // On a bound link only the bound device's tokens work; they go with the binding.
    await k.deleteFrom("share_tokens").where("link_id", "in", bindingIds).execute();
    return binding.filter((r) => r.bound_device !== "").length;
  }

  return {
    access,

    /** POST /api/share/link/create. */
    async create(user: AuthUser, body: z.infer<typeof shareCreateBody>, lang: Lang) {
      const kind = body.shareUrlType;
      const space = await spaces.open(user.id, 0);
      if (!hasPermission(space.permission, kind === ShareUrlType.Download ? Permission.Share : Permission.Invite)) fail("PermissionDenied");

      const serverPath = body.shareServerPath.trim() === "" ? null : normaliseUserPath(body.shareServerPath);
      const full = (entry: string) => normaliseUserPath(entry.startsWith("/") ? entry : childOf(serverPath ?? "/", entry));
      // Forbidden paths as sent and with their links resolved (a link into a forbidden folder too).
      const guard = (p: string) =>
        checkAllowed(space, p).catch((err: unknown) => {
          throw err instanceof FerryError ? err : storageError(err);
        });
      const stat = async (p: string) => {
        try {
          return await space.storage.stat(p);
        } catch (err) {
          throw storageError(err);
        }
      };

      // Password: whitespace removed, 1–6 characters when asked for; invitations always carry one.
      const password = body.needPassword ? normaliseSharePassword(body.shareUrlPasswd) : "";
      if (kind === ShareUrlType.Upload && !body.needPassword) fail("SharePasswordFormat");
      if (body.needPassword && (password.length === 0 || [...password].length > SHARE_PASSWORD_MAX)) fail("SharePasswordFormat");

      const now = clock.now();
      const expireAt = body.shareExpireTime * 1000;
      if (expireAt !== 0 && expireAt <= now) fail("ShareExpiryPast");

      const baseUrl = shareBaseUrl(body.shareBaseUrl.trim());

      const recipients = splitEmails(body.shareEmail);
      if (recipients.some((r) => !isEmail(r) || r.length > 254)) fail("EmailFormat");
      if (recipients.length > SHARE_EMAIL_MAX_RECIPIENTS) fail("InvalidParameter", { reason: `at most ${SHARE_EMAIL_MAX_RECIPIENTS} recipients` });

      let items: { path: string; name: string; alias: string; isFolder: boolean }[];
      let storedServerPath: string;
      let srcType: number;
      if (kind === ShareUrlType.Download) {
        if (body.shareFiles.length === 0) fail("ShareNothingSelected");
        let paths = [...new Set(body.shareFiles.map(full))];
        if (paths.includes("/")) fail("InvalidPath");
        // An item inside another shared item is already shared with it.
        paths = paths.filter((p) => !paths.some((q) => q !== p && isUnder(p, q)));
        for (const p of paths) await guard(p);
        const stats = await Promise.all(paths.map(stat));
        items = stats.map((s, i) => ({ path: paths[i]!, name: baseName(paths[i]!), alias: "", isFolder: s.type === "folder" }));
        let files = 0;
        for (const item of items) {
          files += item.isFolder ? (await space.storage.usage(item.path).catch((err: unknown) => Promise.reject(storageError(err)))).files : 1;
          if (files > SHARE_MAX_FILES) fail("ShareFileLimit", { max: SHARE_MAX_FILES }, { max: SHARE_MAX_FILES });
        }
        srcType = items.length > 1 ? ShareSrcType.Files : items[0]!.isFolder ? ShareSrcType.Folder : ShareSrcType.File;
        storedServerPath = serverPath && paths.every((p) => isUnder(p, serverPath) && p !== serverPath) ? serverPath : commonParent(paths);

        // Aliases: only plain files, fewer than 10, each naming one of the shared files.
        const aliases = body.fileAlias.filter((a) => a.alias !== "");
        const problem = aliasProblem(items, aliases.map((a) => ({ file: full(a.file), alias: a.alias.normalize("NFC") })));
        if (problem) fail(ALIAS_CODES[problem]!);
        for (const a of aliases) {
          const target = items.find((i) => i.path === full(a.file));
          if (!target) fail("InvalidParameter", { reason: "fileAlias names a file that is not shared" });
          target!.alias = a.alias.normalize("NFC");
        }
        // Visitors see the items side by side by their visible names: two alike would hide one.
        const visible = items.map((i) => i.alias || i.name);
        if (new Set(visible).size !== visible.length) fail("ShareNameDuplicate");
      } else {
        if (body.fileAlias.some((a) => a.alias !== "")) fail("ShareAliasNotAllowed");
        if (body.shareFiles.length > 1 || (body.shareFiles.length === 0 && serverPath === null)) fail("ShareInviteFolder");
        const dir = body.shareFiles.length === 1 ? full(body.shareFiles[0]!) : serverPath!;
        await guard(dir);
        if ((await stat(dir)).type !== "folder") fail("ShareInviteFolder");
        items = [{ path: dir, name: dir === "/" ? "/" : baseName(dir), alias: "", isFolder: true }];
        srcType = ShareSrcType.Folder;
        storedServerPath = dir;
      }

      const wantsMail = recipients.length > 0 || body.notifyEmail;
      // 4135 with the reason (docs/mail.md, "Whose account"): the web tells the user which sender is missing.
      if (wantsMail) await (deps.mailer ?? fail("EmailNotConfigured")).checkSender(user.id);

      const id = randomUUID();
      // A request that does not say takes the server's default (General settings, bind first device).
      const bindFirst = body.bindSwitch ?? (await createSettings(db).get("general")).bindFirstDevice;
      const language = body.emailLanguage ?? (lang === "en" ? 1 : 0);
      await k.transaction().execute(async (tx) => {
        await tx
          .insertInto("share_links")
          .values({
            id,
            owner_id: user.id,
            kind,
            src_type: srcType,
            server_path: storedServerPath,
            base_url: baseUrl,
            name_key: (items[0]!.alias || items[0]!.name).toLowerCase().slice(0, 255),
            need_password: body.needPassword ? 1 : 0,
            password: "",
            password_enc: sealPassword(id, password),
            allow_download: body.shareAllowDownload,
            expire_at: expireAt,
            status: ShareStatus.Normal,
            bind_switch: bindFirst ? 1 : 0,
            bound_device: "",
            // A download link has nothing to show or hide: the option is the invitation's.
            show_contents: kind === ShareUrlType.Upload ? body.shareShowContents : 0,
            notify_email: body.notifyEmail ? 1 : 0,
            share_email: recipients.join(";"),
            email_content: body.shareEmailContent,
            email_language: language,
            created_at: now,
            cancelled_at: null,
          })
          .execute();
        await tx
          .insertInto("share_items")
          .values(items.map((it, position) => ({ link_id: id, position, path: it.path, name: it.name, alias: it.alias, is_folder: it.isFolder ? 1 : 0 })))
          .execute();
      });

      const shareUrl = `${baseUrl}/share/${id}`;
      let mailError: number | undefined;
      if (recipients.length > 0 && deps.mailer) {
        // The link stands whatever the mail does; a failure is logged and reported in the answer.
        try {
          await deps.mailer.sendShareLink({
            ownerId: user.id,
            to: recipients,
            language: language === 1 ? "en" : "zh",
            url: shareUrl,
            password: password || null,
            fileNames: items.map((i) => i.alias || i.name),
            message: body.shareEmailContent,
            kind: kind === ShareUrlType.Download ? "download" : "upload",
            expiresAt: expireAt ? toSeconds(expireAt) : null,
          });
        } catch (err) {
          mailError = await mailFailure(err, "share mail failed", id);
        }
      }
      return { shareUrl, shareId: id, sharePassword: password, ...(mailError ? { mailError } : {}) };
    },

    /** GET /api/share/link/list: the caller's own links of one kind. */
    async list(userId: number, q: z.infer<typeof shareListQuery>) {
      const now = clock.now();
      const base = filtered(linkQuery().where("share_links.owner_id", "=", userId).where("share_links.kind", "=", q.shareUrlType), q, now);
      const { total } = await base.select((eb) => eb.fn.countAll<number>().as("total")).executeTakeFirstOrThrow();
      const rows = await ordered(base.selectAll("share_links"), q.orderBy, q.order, now)
        .limit(q.pageSize)
        .offset((q.pageNum - 1) * q.pageSize)
        .execute();
      const count = Number(total);
      return { sharelinkinfo: await listItems(rows, now, "owner"), total: count, size: q.pageSize, current: q.pageNum, pages: Math.ceil(count / q.pageSize) };
    },

    /** POST /api/share/link/delete: removes the caller's links (and their tokens, items, download log). */
    remove: (userId: number, refs: string[]) => removeLinks(userId, refs),

    /** PATCH /api/share/link/cancel: one-way; tokens of those links answer LinkBroken from now on (access.ts). */
    cancel: (userId: number, refs: string[]) => cancelLinks(userId, refs),

    /** POST /api/share/link/unbind: frees the bound device; that device's tokens stop working. */
    async unbind(userId: number, refs: string[]) {
      const ids = await ownIds(userId, refs);
      if (ids.length === 0) fail("ShareUrlNotExist");
      await unbindLinks(userId, ids);
      return { affected: ids.length };
    },

    /** GET /api/admin/shares: every user's links, with their owners (docs/admin-api.md, "Share links"). */
    async adminList(q: z.infer<typeof adminShareListQuery>) {
      const now = clock.now();
      let base = filtered(linkQuery(), q, now, true);
      if (q.shareUrlType !== undefined) base = base.where("share_links.kind", "=", q.shareUrlType);
      if (q.userId !== undefined) base = base.where("share_links.owner_id", "=", q.userId);
      if (q.account) base = base.where(sql<boolean>`${sql.ref("users.account_key")} like ${`%${escapeLike(q.account.toLowerCase())}%`} escape '!'`);
      const { total } = await base.select((eb) => eb.fn.countAll<number>().as("total")).executeTakeFirstOrThrow();
      const rows = await ordered(base.selectAll("share_links").select(["users.account", "users.locked"]), q.orderBy, q.order, now)
        .limit(q.pageSize)
        .offset((q.pageNum - 1) * q.pageSize)
        .execute();
      const items = await listItems(rows, now, "other");
      const list: AdminShareItem[] = items.map((item, i) => adminItem(item, rows[i]!));
      return { list, total: Number(total), size: q.pageSize, current: q.pageNum };
    },

    /** GET /api/admin/shares/:id: one link with its latest 100 downloads. */
    async adminGet(ref: string) {
      const id = shareIdOf(ref);
      const row = id ? await linkQuery().where("share_links.id", "=", id).selectAll("share_links").select(["users.account", "users.locked"]).executeTakeFirst() : undefined;
      if (!row) return fail("ShareUrlNotExist");
      const [item] = await listItems([row], clock.now(), "other");
      return { ...adminItem(item!, row), downloads: await downloadRecords(row.id) };
    },

    /** GET /api/admin/shares/:id/downloads: one link's downloads, newest first, paged. */
    async adminDownloads(ref: string, q: z.infer<typeof adminShareDownloadsQuery>) {
      const id = shareIdOf(ref);
      const link = id ? await k.selectFrom("share_links").select("id").where("id", "=", id).executeTakeFirst() : undefined;
      if (!link) return fail("ShareUrlNotExist");
      const { n } = await k.selectFrom("share_downloads").select((eb) => eb.fn.countAll<number>().as("n")).where("link_id", "=", link.id).executeTakeFirstOrThrow();
      const rows = await k
        .selectFrom("share_downloads")
        .selectAll()
        .where("link_id", "=", link.id)
        .orderBy("created_at", "desc")
        .orderBy("id", "desc")
        .limit(q.pageSize)
        .offset((q.pageNum - 1) * q.pageSize)
        .execute();
      const list = rows.map((r) => ({ ip: r.client_ip, files: JSON.parse(r.files) as string[], time: toSeconds(r.created_at), bytes: Number(r.bytes) }));
      return { list, total: Number(n), size: q.pageSize, current: q.pageNum };
    },

    /** The administrator's disable: visitors get 1055 at once, whatever else the link is; `affected` counts links not disabled before. */
    async adminDisable(refs: string[]) {
      const ids = await ownIds(null, refs);
      if (ids.length === 0) return { affected: 0 };
      const result = await k.updateTable("share_links").set({ disabled_at: clock.now() }).where("id", "in", ids).where("disabled_at", "=", 0).executeTakeFirst();
      return { affected: Number(result.numUpdatedRows) };
    },

    /** Undoes the administrator's disable (an owner's cancel stays). */
    async adminEnable(refs: string[]) {
      const ids = await ownIds(null, refs);
      if (ids.length === 0) return { affected: 0 };
      const result = await k.updateTable("share_links").set({ disabled_at: 0 }).where("id", "in", ids).where("disabled_at", ">", 0).executeTakeFirst();
      return { affected: Number(result.numUpdatedRows) };
    },

    /** The administrator's delete: any user's links. */
    adminRemove: (refs: string[]) => removeLinks(null, refs),
    /** The administrator's unbind: `affected` counts the links that were bound to a device. */
    async adminUnbind(refs: string[]) {
      const ids = await ownIds(null, refs);
      return { affected: ids.length > 0 ? await unbindLinks(null, ids) : 0 };
    },

    /** POST /api/share/link/verify/url. */
    async verify(body: z.infer<typeof shareVerifyBody>, ip: string | null) {
      const { link, owner } = await usableLink(body.url);
      if (link.bind_switch && link.bound_device && link.bound_device !== body.fingerprint) fail("LinkBound");
      const bindSwitch = link.bind_switch ? (1 as const) : (0 as const);
      if (!link.need_password || body.passwd === undefined) return { account: owner.account, needPassword: link.need_password === 1, bindSwitch };
      // A password login binds the first device; without a password the binding waits for `info`.
      await checkPassword(link, body.passwd, ip);
      await bindDevice(link, body.fingerprint);
      return { account: owner.account, needPassword: true, bindSwitch };
    },

    /** GET /api/share/link/info: a share token, for the link's password or a still-valid token of the same link. */
    async info(q: z.infer<typeof shareInfoQuery>, bearer: string | null, ip: string | null) {
      const { link, owner } = await usableLink(q.url);
      const fromToken = bearer ? await access.checkToken(bearer) : null;
      let fingerprint = q.fingerprint;
      let token: string;
      let expiresAt: number;
      if (fromToken && "access" in fromToken && fromToken.link.id === link.id) {
        // A visitor already in: the same token, re-checked above.
        token = bearer!;
        fingerprint = fromToken.access.fingerprint;
        const row = await k.selectFrom("share_tokens").select("expires_at").where("token_hash", "=", tokenDigest(token)).executeTakeFirstOrThrow();
        expiresAt = row.expires_at;
      } else {
        if (fromToken && "error" in fromToken && fromToken.error === "LinkBound") fail("LinkBound");
        if (link.bind_switch && link.bound_device && link.bound_device !== fingerprint) fail("LinkBound");
        if (link.need_password) {
          if (q.passwd === undefined || q.passwd === "") fail("PasswordRequired");
          await checkPassword(link, q.passwd!, ip);
        }
        await bindDevice(link, fingerprint);
        // Each new token is a row: an address gets so many per window, and keeps so many live per link.
        // An unknown address (the web could not tell it) is not one client: those calls are limited per link instead, ten times as much.
        const taken = ip
          ? await rates.take(`rate:share-token:${addressKey(ip)}`, deps.limits.tokensPerAddress, rateWindowMs)
          : await rates.take(`rate:share-token:unknown:${link.id}`, deps.limits.tokensPerAddress * 10, rateWindowMs);
        if (!taken.allowed) throttledRequests(taken.retryAt);
        token = randomBytes(32).toString("base64url");
        const now = clock.now();
        expiresAt = now + SHARE_TOKEN_TTL_SECONDS * 1000;
        const clientIp = (ip ?? "").slice(0, 64);
        await k
          .insertInto("share_tokens")
          .values({ token_hash: tokenDigest(token), link_id: link.id, fingerprint: fingerprint ?? "", client_ip: clientIp, created_at: now, expires_at: expiresAt })
          .execute();
        if (ip) await keepNewestTokens(link.id, clientIp, tokenDigest(token));
      }
      return {
        token,
        shareAccount: owner.account,
        account: owner.account,
        sharePasswd: link.need_password && q.passwd !== undefined ? normaliseSharePassword(q.passwd) : "",
        needPassword: link.need_password === 1,
        bindSwitch: link.bind_switch as 0 | 1,
        bindDevice: link.bind_switch && fingerprint && link.bound_device === fingerprint ? fingerprint : "",
        shareUrlType: link.kind as 0 | 1,
        shareAllowDownload: link.allow_download as 0 | 1,
        shareShowContents: link.show_contents as 0 | 1,
        shareId: link.id,
        expiresIn: Math.max(0, Math.floor((expiresAt - clock.now()) / 1000)),
      };
    },

    /** GET /api/share/link/download/count: the owner (user token) or a visitor of that link (share token). */
    async downloadCount(sid: string, user: AuthUser | null, bearer: string | null) {
      const id = shareIdOf(sid);
      if (!id) return fail("ShareUrlNotExist");
      const count = async () =>
        Number((await k.selectFrom("share_downloads").select((eb) => eb.fn.countAll<number>().as("n")).where("link_id", "=", id).executeTakeFirstOrThrow()).n);
      if (user) {
        const link = await k.selectFrom("share_links").select("id").where("id", "=", id).where("owner_id", "=", user.id).executeTakeFirst();
        if (!link) fail("ShareUrlNotExist");
        return { count: await count(), records: await downloadRecords(id) };
      }
      if (!bearer) return fail("InvalidToken");
      const checked = await access.checkToken(bearer);
      if ("error" in checked) return fail(checked.error);
      if (checked.access.linkId !== id) fail("PermissionDenied");
      return { count: await count() };
    },

    /**
     * POST /api/share/link/download/count: checks the visitor's token and paths and answers the
     * count. It records nothing: a download is counted by the file server when it starts serving
     * one (countDownload), so a post cannot forge or inflate the count.
     */
    async recordDownload(bearer: string | null, accessDest: string[], _ip: string | null) {
      if (!bearer) return fail("InvalidToken");
      const checked = await access.checkToken(bearer);
      if ("error" in checked) return fail(checked.error);
      const { access: a } = checked;
      if (a.kind !== "download") fail("UnsupportedOperation");
      if (!a.allowDownload) fail("DownloadRestricted");
      for (const p of accessDest) {
        const resolved = visitorToOwnerPath(a, p);
        if (!resolved || resolved.root) fail("InvalidPath");
      }
      const { n } = await k.selectFrom("share_downloads").select((eb) => eb.fn.countAll<number>().as("n")).where("link_id", "=", a.linkId).executeTakeFirstOrThrow();
      return { count: Number(n) };
    },

    /**
     * For the file server: a visitor's download of `files` (paths as the visitor sees them) is being
     * served. Counted once per client address and selection per window, and at most
     * FERRY_SHARE_COUNTS_PER_ADDRESS per address per window; tells the owner when the link asks.
     * Returns whether it counted; never throws (the download goes on whatever the count does).
     */
    async countDownload(input: { access: ShareAccess; files: string[]; visitorAddress: string | null; bytes?: number }): Promise<boolean> {
      const { access: a } = input;
      try {
        const files = JSON.stringify([...input.files].sort());
        const clientIp = (input.visitorAddress ?? "").slice(0, 64);
        const now = clock.now();
        const repeat = await k
          .selectFrom("share_downloads")
          .select("id")
          .where("link_id", "=", a.linkId)
          .where("client_ip", "=", clientIp)
          .where("files", "=", files)
          .where("created_at", ">", now - rateWindowMs)
          .executeTakeFirst();
        if (repeat) return false;
        const taken = await rates.take(`rate:share-count:${addressKey(input.visitorAddress)}`, deps.limits.countsPerAddress, rateWindowMs);
        if (!taken.allowed) return false;
        await k.insertInto("share_downloads").values({ link_id: a.linkId, client_ip: clientIp, files, created_at: now, bytes: Math.max(0, Math.floor(input.bytes ?? 0)) }).execute();
      } catch (err) {
        deps.log?.error({ err, linkId: a.linkId }, "download count failed");
        return false;
      }
      try {
        const link = await k.selectFrom("share_links").select(["notify_email", "email_language"]).where("id", "=", a.linkId).executeTakeFirst();
        if (link?.notify_email && deps.mailer) {
          await deps.mailer.notifyOwner({
            ownerId: a.ownerId,
            language: link.email_language === 1 ? "en" : "zh",
            event: "download",
            url: a.shareUrl,
            fileNames: input.files,
            visitorAddress: input.visitorAddress ?? "",
          });
        }
      } catch (err) {
        await mailFailure(err, "download notice failed", a.linkId);
      }
      return true;
    },

    /**
     * Seals the share passwords still stored in clear (links made before they were sealed); run at
     * start. Returns how many it sealed.
     */
    async sealStoredPasswords(): Promise<number> {
      const rows = await k.selectFrom("share_links").select(["id", "password"]).where("password", "!=", "").execute();
      for (const row of rows) {
        await k.updateTable("share_links").set({ password_enc: sealPassword(row.id, row.password), password: "" }).where("id", "=", row.id).where("password", "=", row.password).execute();
      }
      return rows.length;
    },

    /**
     * For the file server: an upload to an invitation finished. Sends the owner's upload notice
     * when the invitation asked for one; never throws (the upload stands whatever the mail does).
     */
    async recordShareUpload(input: { access: ShareAccess; files: string[]; visitorAddress: string | null }): Promise<void> {
      try {
        if (input.access.kind !== "upload") return;
        const link = await k.selectFrom("share_links").select(["notify_email", "email_language"]).where("id", "=", input.access.linkId).executeTakeFirst();
        if (!link?.notify_email || !deps.mailer) return;
        await deps.mailer.notifyOwner({
          ownerId: input.access.ownerId,
          language: link.email_language === 1 ? "en" : "zh",
          event: "upload",
          url: input.access.shareUrl,
          fileNames: input.files,
          visitorAddress: input.visitorAddress ?? "",
        });
      } catch (err) {
        await mailFailure(err, "upload notice failed", input.access.linkId);
      }
    },
  };
}

export type Shares = ReturnType<typeof createShares>;
