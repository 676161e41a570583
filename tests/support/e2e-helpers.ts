import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { signLicence } from "./licence";
import path from "node:path";
import type { AdminUser, CreateUserBody, SecuritySettings } from "../../contract/admin";
import { createCredentialCodec } from "../../contract/credentials";
import type { Envelope } from "../../contract/envelope";
import { ADMIN_ACCOUNT, ADMIN_INITIAL_PASSWORD, ADMIN_PASSWORD, ENGINE_URL, SALT, WEB_URL } from "./e2e-env";

/**
 * Talks to the end-to-end run's engine directly (not through the browser), to set the scene for a
 * test: users, notices, security settings, locks. Every test file shares this one engine for the
 * whole run, so give what you create names of its own (`uniqueAccount`).
 *
 * The administrator: `adminToken()` performs admin's forced first change of password (initial
 * ADMIN_INITIAL_PASSWORD → ADMIN_PASSWORD) the first time any test needs it. After that, admin signs
 * in (UI or API) with ADMIN_PASSWORD. A test of that first sign-in through the UI therefore needs an
 * engine nobody called `adminToken()` on — a second engine + web pair, not this one.
 */
export { ADMIN_ACCOUNT, ADMIN_INITIAL_PASSWORD, ADMIN_PASSWORD, ENGINE_URL, SALT, WEB_URL };

export const codec = createCredentialCodec(SALT);

export class EngineCallError extends Error {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly reply: Envelope,
  ) {
    super(`${method} ${path} → ${reply.code} ${reply.value}: ${reply.message} ${JSON.stringify(reply.data)}`);
    this.name = "EngineCallError";
  }
}

export interface CallOptions {
  body?: unknown;
  token?: string;
  headers?: Record<string, string>;
}

/** One REST call; returns the envelope whatever its code (see `ok` for calls that must succeed). */
export async function call<T = unknown>(method: string, apiPath: string, options: CallOptions = {}): Promise<Envelope<T>> {
  const headers: Record<string, string> = { accept: "application/json", ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(ENGINE_URL + apiPath, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  return (await response.json()) as Envelope<T>;
}

/** A call that must answer code 200; returns its `data`, throws EngineCallError otherwise. */
export async function ok<T = unknown>(method: string, apiPath: string, options: CallOptions = {}): Promise<T> {
  const reply = await call<T>(method, apiPath, options);
  if (reply.code !== 200) throw new EngineCallError(method, apiPath, reply as Envelope);
  return reply.data as T;
}

export interface LoginData {
  token: string;
  refresh_token: string;
  websocket_token: string;
  expires_in: number;
  userId: number;
  account: string;
  accountType: number;
  isAdmin: boolean;
}

/** POST /api/user/login with the encoded `UK`; the envelope as it came (1074, 1005, 1050 included). */
export function login(account: string, password: string): Promise<Envelope<LoginData>> {
  return call<LoginData>("POST", "/api/user/login", { body: { UK: codec.encodeUK(account, password) } });
}

/** Signs in and returns the access token; throws unless the sign-in succeeds. */
export async function tokenFor(account: string, password: string): Promise<string> {
  return (await ok<LoginData>("POST", "/api/user/login", { body: { UK: codec.encodeUK(account, password) } })).token;
}

// Playwright starts a new worker process after a failed test, so the administrator's state lives
// in a file of the run directory, not only in memory. That way a new worker never guesses a
// password: a wrong one would count toward the lockout of `admin` and of 127.0.0.1 — the address
// the web client's own calls come from.
let cachedAdminToken: string | undefined;
const adminStateFile = () => (process.env.FERRY_E2E_RUN_DIR ? path.join(process.env.FERRY_E2E_RUN_DIR, "admin-session.json") : null);

function readAdminState(): { passwordChanged: boolean; token?: string } {
  const file = adminStateFile();
  if (!file || !existsSync(file)) return { passwordChanged: false };
  return JSON.parse(readFileSync(file, "utf8")) as { passwordChanged: boolean; token?: string };
}

function writeAdminState(token: string) {
  const file = adminStateFile();
  if (file) writeFileSync(file, JSON.stringify({ passwordChanged: true, token }));
}

/**
 * The administrator's access token. The first call on a run's engine completes admin's forced
 * first change of password (code 1074) through `PUT /api/user/password/update` without a token;
 * from then on admin's password is ADMIN_PASSWORD. Cached; signs in again if the token stopped
 * working (a test signed admin out, for example).
 */
export async function adminToken(): Promise<string> {
  const state = readAdminState();
  for (const token of [cachedAdminToken, state.token]) {
    if (token && (await call("GET", "/api/user/info", { token })).code === 200) return (cachedAdminToken = token);
  }
  if (!state.passwordChanged) {
    // The first-admin e2e project changes it through the UI to ADMIN_PASSWORD; otherwise do it here.
    const first = await login(ADMIN_ACCOUNT, ADMIN_INITIAL_PASSWORD);
    if (first.code === 1074) {
      await ok("PUT", "/api/user/password/update", {
        body: { account: ADMIN_ACCOUNT, oldPassword: codec.encode(ADMIN_INITIAL_PASSWORD), newPassword: codec.encode(ADMIN_PASSWORD), needUpdatePwd: false },
      });
    }
  }
  cachedAdminToken = await tokenFor(ADMIN_ACCOUNT, ADMIN_PASSWORD);
  writeAdminState(cachedAdminToken);
  return cachedAdminToken;
}

/** An account name no other test of the run uses: `prefix_<base36 time><random>` (≤ 30 characters). */
export function uniqueAccount(prefix = "user"): string {
  const suffix = `${Date.now().toString(36)}${Math.floor(Math.random() * 36 ** 3).toString(36).padStart(3, "0")}`;
  return `${prefix.slice(0, 30 - suffix.length - 1)}_${suffix}`;
}

export type UserOptions = Omit<CreateUserBody, "account" | "password">;

/**
 * Creates a user through POST /api/admin/users, ready to sign in (needUpdatePwd false unless
 * `options` says otherwise). The password must meet the rules (8–20 characters, three of
 * upper/lower/digit/other, not containing the account).
 */
export async function createUser(account: string, password: string, options: UserOptions = {}): Promise<AdminUser & { password: string }> {
  const user = await ok<AdminUser>("POST", "/api/admin/users", {
    token: await adminToken(),
    body: { account, password, needUpdatePwd: false, ...options },
  });
  return { ...user, password };
}

export interface SentNotice {
  id: number;
  title: string;
  content: string;
  createTime: number;
  receivers: number;
  read: number;
}

/** Sends a notification to user ids, or to every user with "all". */
export async function sendNotice(title: string, content: string, receivers: number[] | "all"): Promise<SentNotice> {
  return ok<SentNotice>("POST", "/api/admin/notices", { token: await adminToken(), body: { title, content, receivers, way: ["website"] } });
}

/**
 * Changes the security settings (lockTimes 3–30, lockMinutes 1–1440, allowUserSetPassword,
 * weakPasswords) and returns them all. They are engine-wide: a test that changes them should put
 * them back (`getSecurity()` first).
 */
export async function setSecurity(settings: Partial<SecuritySettings>): Promise<SecuritySettings> {
  return ok<SecuritySettings>("PATCH", "/api/admin/settings/security", { token: await adminToken(), body: settings });
}

export async function getSecurity(): Promise<SecuritySettings> {
  return ok<SecuritySettings>("GET", "/api/admin/settings/security", { token: await adminToken() });
}

/** An administrator's lock: the user's sessions end and its sign-in answers 1050. */
export async function lockUser(id: number): Promise<AdminUser> {
  return ok<AdminUser>("POST", `/api/admin/users/${id}/lock`, { token: await adminToken() });
}

/** Lifts an administrator's lock and ends the account's automatic lockout (not the address's). */
export async function unlockUser(id: number): Promise<AdminUser> {
  return ok<AdminUser>("POST", `/api/admin/users/${id}/unlock`, { token: await adminToken() });
}

/**
 * Site branding (PATCH /api/admin/settings/site); returns the settings as they were before. Branding
 * is site customisation, an enterprise feature (docs/licence.md): the run's engine is the free
 * edition, so this uploads a test enterprise licence first when none is in effect. What it returns
 * remembers that (`licence`): passing it back restores the settings and then removes that licence.
 */
export async function setSite(patch: Record<string, unknown>): Promise<Record<string, unknown>> {
  const { licence: restoring, ...fields } = patch;
  const token = await adminToken();
  const state = await ok<{ source: string }>("GET", "/api/admin/licence", { token });
  if (state.source !== "licence") await ok("POST", "/api/admin/licence", { token, body: { licence: signLicence({ edition: "enterprise", id: "e2e-branding" }) } });
  const before = await ok<Record<string, unknown>>("GET", "/api/admin/settings/site", { token });
  await ok("PATCH", "/api/admin/settings/site", { token, body: fields });
  if (restoring === "remove") await ok("DELETE", "/api/admin/licence", { token });
  return { ...before, licence: state.source === "licence" ? "keep" : "remove" };
}

/**
 * The teardown of specs that change the site design under a licence: with an enterprise licence in
 * effect (a test one uploaded when none is), `reset` puts back what the spec changed besides the
 * design, the design is restored to its defaults, and the licence is removed: the run's engine is
 * the free edition again, as every other spec expects.
 */
export async function resetDesignAndLicence(reset: (token: string) => Promise<unknown> = async () => undefined): Promise<void> {
  const token = await adminToken();
  const state = await ok<{ source: string }>("GET", "/api/admin/licence", { token });
  if (state.source !== "licence") await ok("POST", "/api/admin/licence", { token, body: { licence: signLicence({ edition: "enterprise" }) } });
  await reset(token);
  await ok("POST", "/api/admin/site-design/reset", { token });
  await ok("DELETE", "/api/admin/licence", { token });
}
