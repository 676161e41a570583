import { randomUUID } from "node:crypto";
import { createCookie, createCookieSessionStorage } from "@remix-run/node";
import { SHARE_FINGERPRINT_MAX, SHARE_TOKEN_TTL_SECONDS } from "../../contract/share";
import { seal, unseal } from "./seal.server";
import { sessionSecret } from "./secret.server";
import { isHttps } from "./session.server";

/**
 * The share page's own session (docs/web.md, "Share page"): the share tokens a visitor holds, one
 * per link, sealed in a cookie of their own. It is not the signed-in session (`session.server.ts`):
 * a visitor needs no account, a signed-in user opening a link keeps both, and signing out never
 * touches it. No token ever reaches the page's HTML from here; the disk view hands the one token
 * the socket needs to the browser explicitly, as the signed-in shell does with its socket token.
 */

/** Links remembered at once; the oldest is dropped first. */
export const SHARE_SESSION_MAX_LINKS = 10;
/** Both cookies of this module are sent to the share pages only. */
const SHARE_COOKIE_PATH = "/share";

interface ShareVisit {
  token: string;
  /** Unix ms of the last use, to drop the oldest. */
  at: number;
}
type ShareVisits = Record<string, ShareVisit>;

function storage(secure: boolean) {
  return createCookieSessionStorage({
    cookie: {
      // Sent to the share pages only (hence __Secure-, as __Host- needs Path=/).
      name: secure ? "__Secure-ferry_share" : "ferry_share",
      httpOnly: true,
      sameSite: "lax",
      secure,
      path: SHARE_COOKIE_PATH,
      secrets: [sessionSecret],
      // A share token lasts 24 h at most; the cookie need not outlive it.
      maxAge: SHARE_TOKEN_TTL_SECONDS,
    },
  });
}
const plain = storage(false);
const secure = storage(true);
const storageFor = (request: Request) => (isHttps(request) ? secure : plain);

async function readVisits(request: Request) {
  const store = storageFor(request);
  const session = await store.getSession(request.headers.get("Cookie"));
  const visits = unseal<ShareVisits>(session.get("visits")) ?? {};
  return { store, session, visits };
}

/** The share token this browser holds for link `shareId`, or null. */
export async function getShareToken(request: Request, shareId: string): Promise<string | null> {
  const { visits } = await readVisits(request);
  return visits[shareId]?.token ?? null;
}

/** Keeps `token` for `shareId` (null forgets it); returns the Set-Cookie header. */
export async function setShareToken(request: Request, shareId: string, token: string | null, now = Date.now()): Promise<string> {
  const { store, session, visits } = await readVisits(request);
  if (token) visits[shareId] = { token, at: now };
  else delete visits[shareId];
  const kept = Object.entries(visits)
    .sort(([, a], [, b]) => b.at - a.at)
    .slice(0, SHARE_SESSION_MAX_LINKS);
  if (kept.length === 0) return store.destroySession(session);
  session.set("visits", seal(Object.fromEntries(kept)));
  return store.commitSession(session);
}

/**
 * The browser's id for bind-first-device (the spec's "browser fingerprint"): a random id kept in a
 * long-lived cookie, so the same browser gives the same id with and without JavaScript, and a
 * second browser (or a private window) is a second device. Signed, so a page cannot plant one.
 */
const FINGERPRINT_MAX_AGE = 400 * 24 * 3600; // browsers cap cookie lifetimes at 400 days
function fingerprintCookie(secureCookie: boolean) {
  return createCookie(secureCookie ? "__Secure-ferry_device" : "ferry_device", {
    httpOnly: true,
    sameSite: "lax",
    secure: secureCookie,
    path: SHARE_COOKIE_PATH,
    secrets: [sessionSecret],
    maxAge: FINGERPRINT_MAX_AGE,
  });
}
const plainDevice = fingerprintCookie(false);
const secureDevice = fingerprintCookie(true);
const FINGERPRINT_PATTERN = /^[0-9a-f-]{36}$/;

/** This browser's device id, and the Set-Cookie header that keeps (or first sets) it. */
export async function deviceFingerprint(request: Request): Promise<{ fingerprint: string; setCookie: string }> {
  const cookie = isHttps(request) ? secureDevice : plainDevice;
  const stored: unknown = await cookie.parse(request.headers.get("Cookie"));
  const fingerprint = typeof stored === "string" && FINGERPRINT_PATTERN.test(stored) && stored.length <= SHARE_FINGERPRINT_MAX ? stored : randomUUID();
  // Sent again on every visit, so a browser in use never reaches the cap.
  return { fingerprint, setCookie: await cookie.serialize(fingerprint) };
}
