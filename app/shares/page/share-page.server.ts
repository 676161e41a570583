import type { Envelope } from "../../../contract/envelope";
import { ErrorCode } from "../../../contract/errors";
import type { Listing } from "../../../contract/files";
import type { shareInfoData, shareVerifyData } from "../../../contract/share";
import type { ServerInfo } from "../../../contract/site";
import { getT } from "../../i18n/i18next.server";
import { fileServerUrls } from "../../files/file-server-url";
import { EngineError, engineFetch } from "../../utils/engine.server";
import { listingEntries } from "../../../contract/files";
import type { ListingPage } from "./disk-listing";
import type * as z from "zod";

/**
 * The share page's calls to the engine (docs/web.md, "Share page"). Everything runs in the web
 * process with the visitor's share token from the share session cookie; the browser only ever gets
 * the token through the socket resource route, for the file server.
 */

/** Codes that mean the link itself is gone: the expired view (spec section 8; 1055 = owner locked or lost the bit). */
export const LINK_GONE_CODES: ReadonlySet<number> = new Set([ErrorCode.LinkExpired, ErrorCode.LinkBroken, ErrorCode.ShareUrlNotExist, ErrorCode.LinkDisabled]);
export const isLinkGone = (code: number) => LINK_GONE_CODES.has(code);

type VerifyData = z.infer<typeof shareVerifyData>;
export type ShareInfo = z.infer<typeof shareInfoData>;

const json = (body: unknown) => ({ method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/** POST /api/share/link/verify/url: is the link usable, does it need a password (checked when `passwd` is sent). */
export function verifyLink(request: Request, shareId: string, fingerprint: string, passwd?: string): Promise<Envelope<VerifyData>> {
  return engineFetch<VerifyData>("/api/share/link/verify/url", { ...json({ url: shareId, fingerprint, ...(passwd === undefined ? {} : { passwd }) }), request });
}

/** GET /api/share/link/info: a share token for the password, or the same token renewed when `token` is still good. */
export function issueToken(request: Request, shareId: string, fingerprint: string, options: { passwd?: string; token?: string } = {}): Promise<Envelope<ShareInfo>> {
  const query = new URLSearchParams({ url: shareId, fingerprint });
  if (options.passwd !== undefined) query.set("passwd", options.passwd);
  return engineFetch<ShareInfo>(`/api/share/link/info?${query}`, { request, headers: options.token ? bearer(options.token) : undefined });
}

/** POST /api/share/link/download/count: records a visitor's download (paths as the visitor sees them). */
export function recordDownload(request: Request, token: string, accessDest: string[]): Promise<Envelope<{ count: number }>> {
  const init = json({ accessDest });
  return engineFetch<{ count: number }>("/api/share/link/download/count", { ...init, headers: { ...init.headers, ...bearer(token) }, request });
}

/** H7's REST listing of a folder inside the share (contract/share-files.ts), the socket `list` shape. */
export function listShareFolder(request: Request, token: string, path: string): Promise<Envelope<Listing>> {
  return engineFetch<Listing>(`/api/share/files/list?${new URLSearchParams({ path })}`, { request, headers: bearer(token) });
}

/** H7's REST signed download URL for files inside the share. */
export function shareDownloadTicket(request: Request, token: string, paths: string[]): Promise<Envelope<{ url: string; name: string }>> {
  const init = json({ paths });
  return engineFetch<{ url: string; name: string }>("/api/share/files/download", { ...init, headers: { ...init.headers, ...bearer(token) }, request });
}

/** Where the browser reaches the file server, as the signed-in shell learns it from /api/service/info. */
export function fileServerInfo(request: Request, token: string): Promise<Envelope<{ server: ServerInfo }>> {
  return engineFetch<{ server: ServerInfo }>("/api/service/info", { request, headers: bearer(token) });
}

/** The file server's base URL for a visitor of this page: the browser's own rule (`fileServerUrls`). */
export function fileServerBase(request: Request, server: Pick<ServerInfo, "host" | "no_ssl_port" | "ssl_port">, https: boolean): string {
  const location = { protocol: https ? "https:" : "http:", hostname: new URL(request.url).hostname };
  return fileServerUrls({ host: server.host, port: server.no_ssl_port, sslPort: server.ssl_port }, location).httpUrl;
}

/** Page sizes of the plain listing: the kit's table renders about 20 rows without JavaScript. */
const LISTING_SIZES = [10, 20] as const;

/** `confirm`: a link without password that binds the first device asks before it binds this one (a POST, never the GET). */
export type LoginState = { view: "login"; refusal: string | null; confirm?: boolean };
export type DiskState = {
  view: "disk";
  shareId: string;
  kind: "download" | "upload";
  allowDownload: boolean;
  /** An invitation that is a file drop: the visitor sees only their own uploads (docs/shares.md). */
  drop: boolean;
  account: string;
  path: string;
  /** The plain listing (null for an invitation, or when the engine could not list). */
  listing: ListingPage | null;
  listingError: string | null;
};
export type PageState = { view: "expired" } | LoginState | DiskState;

/** A folder path from `?path=`: "/" plus clean parts (the engine confines it again). */
function folderParam(value: string | null): string {
  const parts = (value ?? "").split("/").filter((p) => p && p !== "." && p !== "..");
  return parts.length === 0 ? "/" : `/${parts.join("/")}`;
}

function listingParams(url: URL) {
  const size = Number(url.searchParams.get("size"));
  const page = Math.trunc(Number(url.searchParams.get("page")));
  return { size: (LISTING_SIZES as readonly number[]).includes(size) ? size : size > 10 ? 20 : 10, page: Number.isFinite(page) && page > 1 ? page : 1 };
}

/** The text of a refused password or link, in the visitor's language. */
export function refusalText(t: Awaited<ReturnType<typeof getT>>, code: number, data: unknown): string {
  if (code === ErrorCode.LinkBound) return t("app.share.login-failed");
  if (code === ErrorCode.WrongPassword) {
    const remaining = Number((data as { remaining?: unknown } | null)?.remaining);
    return Number.isFinite(remaining) ? `${t("app.share.invalid-password")} ${t("share.login.remaining", { count: remaining })}` : t("app.share.invalid-password");
  }
  // Both carry the seconds left (data.retryAfter); the message says the minutes.
  if (code === ErrorCode.ShareAttemptsLocked || code === ErrorCode.ShareRequestsThrottled) {
    const retryAfter = Number((data as { retryAfter?: unknown } | null)?.retryAfter);
    return t(`error.${code}`, { minutes: Number.isFinite(retryAfter) ? Math.max(1, Math.ceil(retryAfter / 60)) : 15 });
  }
  return t(`error.${code}`, { defaultValue: t("global.error.something-wrong", { code }) });
}

export async function diskState(request: Request, shareId: string, token: string, info: ShareInfo): Promise<DiskState> {
  const url = new URL(request.url);
  const path = folderParam(url.searchParams.get("path"));
  const kind = info.shareUrlType === 1 ? "download" : "upload";
  const state: DiskState = { view: "disk", shareId, kind, allowDownload: kind === "download" && info.shareAllowDownload === 1, drop: kind === "upload" && info.shareShowContents !== 1, account: info.shareAccount, path, listing: null, listingError: null };
  if (kind === "upload") return state;
  const { page, size } = listingParams(url);
  try {
    const listed = await listShareFolder(request, token, path);
    if (listed.code !== 200 || !listed.data) {
      state.listingError = (await getT(request))(`error.${listed.code}`, { defaultValue: listed.message });
      return state;
    }
    const entries = listingEntries(listed.data);
    const pages = Math.max(1, Math.ceil(entries.length / size));
    const current = Math.min(page, pages);
    state.listing = { entries: entries.slice((current - 1) * size, current * size), total: entries.length, page: current, size };
  } catch (error) {
    if (!(error instanceof EngineError)) throw error;
    state.listingError = (await getT(request))("share.disk.unavailable");
  }
  return state;
}
