import { createCookieSessionStorage, redirect, type Session } from "@remix-run/node";
import type { Envelope } from "../../contract/envelope";
import { engineFetch, type EngineFetchInit } from "./engine.server";
import { seal, unseal } from "./seal.server";
import { sessionSecret } from "./secret.server";

/** Spec: 30 minutes without activity signs out; the token is refreshed every 20 minutes. */
export const IDLE_TIMEOUT_MS = 30 * 60_000;
export const REFRESH_INTERVAL_MS = 20 * 60_000;

/** What the web keeps of a sign-in. Sealed in the cookie: browser JavaScript never sees a token. */
export interface EngineSession {
  token: string;
  refreshToken: string;
  /** The file server's login token (`websocket_token`); the one token the browser gets, as REST refuses it. */
  socketToken: string;
  account: string;
  userId: number;
  accountType: number;
  isAdmin: boolean;
}

/** Carried from a 1074 answer to /reset-password, server-side only. */
export interface PendingReset {
  account: string;
  oldPassword: string;
}

/**
 * The user app and the admin console keep separate sessions: cookies `ferry` and `ferry-admin`
 * (`__Host-` under HTTPS), each with its own sign-in page, so the administrator's token never rides
 * along with a user page and signing out of one leaves the other (docs/web.md, "Admin console").
 */
export type SessionArea = "user" | "admin";
export const SIGNIN_PAGE: Record<SessionArea, string> = { user: "/signin", admin: "/admin/signin" };
const COOKIE: Record<SessionArea, string> = { user: "ferry", admin: "ferry-admin" };

function storage(secure: boolean, area: SessionArea) {
  return createCookieSessionStorage({
    cookie: { name: (secure ? "__Host-" : "") + COOKIE[area], httpOnly: true, sameSite: "lax", secure, path: "/", secrets: [sessionSecret] },
  });
}
const storages = {
  user: { plain: storage(false, "user"), secure: storage(true, "user") },
  admin: { plain: storage(false, "admin"), secure: storage(true, "admin") },
};

/** HTTPS (directly or behind a proxy that says so) gets the Secure, __Host- cookie. */
export function isHttps(request: Request) {
  return new URL(request.url).protocol === "https:" || request.headers.get("x-forwarded-proto") === "https";
}
const storageFor = (request: Request, area: SessionArea) => storages[area][isHttps(request) ? "secure" : "plain"];

export const getSession = (request: Request, area: SessionArea = "user") => storageFor(request, area).getSession(request.headers.get("Cookie"));
export const commitSession = (request: Request, session: Session, area: SessionArea = "user") => storageFor(request, area).commitSession(session);
export const destroySession = (request: Request, session: Session, area: SessionArea = "user") => storageFor(request, area).destroySession(session);

export function startSession(session: Session, engine: EngineSession, now = Date.now()) {
  session.unset("reset");
  session.set("engine", seal(engine));
  session.set("activeAt", now);
  session.set("refreshedAt", now);
}

export const readEngine = (session: Session) => unseal<EngineSession>(session.get("engine"));
export const setPendingReset = (session: Session, reset: PendingReset) => session.set("reset", seal(reset));
export const readPendingReset = (session: Session) => unseal<PendingReset>(session.get("reset"));

/** Ends the sign-in: the engine revokes the tokens, the cookie is cleared, the browser goes to the area's sign-in page. */
export async function signOut(request: Request, session: Session, reason?: "expired", area: SessionArea = "user") {
  const engine = readEngine(session);
  if (engine) await engineFetch("/api/user/logout", { method: "POST", headers: { Authorization: `Bearer ${engine.token}` } }).catch(() => null);
  const page = SIGNIN_PAGE[area];
  throw redirect(reason ? `${page}?reason=${reason}` : page, { headers: { "Set-Cookie": await destroySession(request, session, area) } });
}

export interface SignedIn {
  session: Session;
  engine: EngineSession;
  /** Calls the engine as this user; a 1009 (revoked, expired) ends the session with the logout notice. */
  call<T>(path: string, init?: EngineFetchInit): Promise<Envelope<T>>;
  /** The Set-Cookie header carrying the renewed activity time (and any refreshed token). */
  commit(): Promise<string>;
}

/**
 * The signed-in user of a page, or a redirect to the area's sign-in page (with the page to come back to). Each call
 * counts as activity; past 30 idle minutes the session ends. A token older than 20 minutes is
 * refreshed first (also when the browser's timer asks, see routes/session.ts); a failed refresh ends
 * the session.
 */
export async function requireUser(request: Request, options: { forceRefresh?: boolean; activity?: boolean; now?: number; area?: SessionArea } = {}): Promise<SignedIn> {
  const now = options.now ?? Date.now();
  const area = options.area ?? "user";
  const session = await getSession(request, area);
  const engine = readEngine(session);
  const page = SIGNIN_PAGE[area];
  if (!engine) {
    const url = new URL(request.url);
    const back = url.pathname + url.search;
    throw redirect(back === "/" || back === "/admin" || back.startsWith(page) ? page : `${page}?redirectTo=${encodeURIComponent(back)}`);
  }
  if (now - Number(session.get("activeAt") ?? 0) > IDLE_TIMEOUT_MS) await signOut(request, session, "expired", area);

  if (options.forceRefresh || now - Number(session.get("refreshedAt") ?? 0) > REFRESH_INTERVAL_MS) {
    // The refresh token rotates: the answer carries its successor, which the cookie keeps. Two
    // requests of one browser that refresh at once (two tabs, parallel loaders) send the same token;
    // the engine answers both with the same new pair (docs/security.md, section 3).
    // Not tied to the browser's request: a rotation must not be cut off by a navigation.
    const refreshed = await engineFetch<{ token: string; refresh_token?: string }>("/api/user/auth", {
      method: "PUT",
      headers: { Authorization: `Bearer ${engine.refreshToken}` },
    });
    if (!refreshed.result || !refreshed.data) await signOut(request, session, "expired", area);
    engine.token = refreshed.data!.token;
    if (refreshed.data!.refresh_token) engine.refreshToken = refreshed.data!.refresh_token;
    session.set("engine", seal(engine));
    session.set("refreshedAt", now);
  }
  // The browser's refresh timer is not activity; every other request is.
  if (options.activity !== false) session.set("activeAt", now);

  return {
    session,
    engine,
    async call<T>(path: string, init: EngineFetchInit = {}) {
      const headers = new Headers(init.headers);
      headers.set("Authorization", `Bearer ${engine.token}`);
      if (init.body !== undefined && !headers.has("Content-Type")) headers.set("Content-Type", "application/json");
      const reply = await engineFetch<T>(path, { ...init, headers, request });
      if (reply.code === 1009) await signOut(request, session, "expired", area);
      return reply;
    },
    commit: () => commitSession(request, session, area),
  };
}

/** The administrator of a console page (the admin session); a session there that is not the administrator's ends. */
export async function requireAdmin(request: Request, options: { forceRefresh?: boolean; activity?: boolean; now?: number } = {}): Promise<SignedIn> {
  const admin = await requireUser(request, { ...options, area: "admin" });
  if (!admin.engine.isAdmin) await signOut(request, admin.session, undefined, "admin");
  return admin;
}
