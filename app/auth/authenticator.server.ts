import { parseWithZod } from "@conform-to/zod/v4";
import { data, redirect } from "@remix-run/node";
import { Authenticator } from "remix-auth";
import { FormStrategy } from "remix-auth-form";
import { getT } from "~/i18n/i18next.server";
import { codec } from "~/utils/credentials.server";
import { readForm } from "~/utils/form.server";
import { safeRedirect } from "~/utils/redirect";
import { engineFetch, EngineError } from "~/utils/engine.server";
import { commitSession, getSession, setPendingReset, startSession, type EngineSession, type PendingReset, type SessionArea } from "~/utils/session.server";
import { ADMIN_ACCOUNT, lockedData, type loginData, wrongPasswordData } from "../../contract/auth";
import { ErrorCode } from "../../contract/errors";
import { signInSchema } from "./signin-form";
import { EMAIL_PATTERN } from "../../contract/validation";
import type * as z from "zod";

/**
 * Sign-in with remix-auth (v4 keeps no session of its own): a form strategy asks the engine and
 * answers what the sign-in led to; the route stores it in the web's own session
 * (utils/session.server.ts). Two strategies: `user` for /signin, `admin` for /admin/signin, which
 * lets only the administrator in (docs/web.md, "Admin console"); a strategy is named after the
 * session area it signs in to.
 */
export type SignInResult =
  /** Signed in: the engine's tokens, to keep in the session. */
  | { kind: "session"; engine: EngineSession }
  /** The engine answered 1074: the password must be changed first (account and old password, kept sealed). */
  | { kind: "reset"; reset: PendingReset };

/** A sign-in the engine (or the admin rule) refused; the message is translated, ready for the form. */
export class SignInRefused extends Error {
  override name = "SignInRefused";
}

type LoginReply = z.infer<typeof loginData>;

/** The engine's sign-in, with every refusal turned into the catalogue's text in the reader's language. */
async function askEngine(form: FormData, request: Request): Promise<SignInResult> {
  const t = await getT(request);
  const password = String(form.get("password") ?? "");
  let account = String(form.get("account") ?? "");
  try {
    // An e-mail address is first resolved to its account (spec section 5).
    if (EMAIL_PATTERN.test(account)) {
      const lookup = await engineFetch<{ result: number; account: string }>("/api/user/account/lookup", {
        method: "POST",
        request,
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ action: "get_account", email: account }),
      });
      if (!lookup.result || lookup.data?.result !== 0) throw new SignInRefused(t(`error.${lookup.code}`));
      account = lookup.data.account;
    }
    const reply = await engineFetch<LoginReply>("/api/user/login", {
      method: "POST",
      request,
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ UK: codec.encodeUK(account, password) }),
    });
    if (reply.code === 200 && reply.data) {
      const { token, refresh_token, websocket_token, userId, accountType, isAdmin } = reply.data;
      return { kind: "session", engine: { token, refreshToken: refresh_token, socketToken: websocket_token, account: reply.data.account, userId, accountType, isAdmin } };
    }
    // The account and the old password travel to the reset page sealed in the session, never in the URL.
    if (reply.code === ErrorCode.NeedResetPassword) {
      const named = (reply.data as { account?: unknown } | null)?.account;
      return { kind: "reset", reset: { account: typeof named === "string" ? named : account, oldPassword: password } };
    }
    const wrong = reply.code === ErrorCode.WrongPassword && wrongPasswordData.safeParse(reply.data);
    if (wrong && wrong.success) {
      const { loginFailTimes, maxLockTimes, lockPeriod } = wrong.data;
      throw new SignInRefused(t("error.1005", { wrongTimes: loginFailTimes, maxLockTimes, lockPeriod: Math.round(lockPeriod / 60) }));
    }
    // A lock that ends by itself says when: the minutes left, rounded up (an administrator's lock has no data).
    const lock = (reply.code === ErrorCode.AccountLocked || reply.code === ErrorCode.IpLocked) && lockedData.safeParse(reply.data);
    if (lock && lock.success) {
      const count = Math.ceil(lock.data.retryAfter / 60);
      throw new SignInRefused(t(reply.code === ErrorCode.AccountLocked ? "auth.locked.account" : "auth.locked.address", { count }));
    }
    throw new SignInRefused(t(`error.${reply.code}`, { defaultValue: reply.message }));
  } catch (error) {
    if (error instanceof EngineError) throw new SignInRefused(t("global.server.error"));
    throw error;
  }
}

/**
 * The console is the administrator's alone: anyone else who signs in there gets the catalogue's
 * 1031 Site Access Denied, and the session the engine just opened for them is closed again. A 1074
 * is let through to /admin/update-info only for the administrator's account.
 */
async function askEngineAsAdmin(form: FormData, request: Request): Promise<SignInResult> {
  const result = await askEngine(form, request);
  const isAdmin = result.kind === "session" ? result.engine.isAdmin : result.reset.account.toLowerCase() === ADMIN_ACCOUNT;
  if (isAdmin) return result;
  if (result.kind === "session") {
    await engineFetch("/api/user/logout", { method: "POST", headers: { Authorization: `Bearer ${result.engine.token}` } }).catch(() => null);
  }
  const t = await getT(request);
  throw new SignInRefused(t(`error.${ErrorCode.SiteAccessDenied}`));
}

export const authenticator = new Authenticator<SignInResult>()
  .use(new FormStrategy(({ form, request }) => askEngine(form, request)), "user")
  .use(new FormStrategy(({ form, request }) => askEngineAsAdmin(form, request)), "admin");

/**
 * Runs a strategy on credentials the route has already read (through readForm: bounded, same-site)
 * and checked. The strategy reads its form from a request of its own, which carries the visitor's
 * headers (address, language) and abort signal.
 */
export function signIn(strategy: SessionArea, request: Request, credentials: { account: string; password: string }): Promise<SignInResult> {
  const headers = new Headers(request.headers);
  headers.delete("content-length");
  headers.set("content-type", "application/x-www-form-urlencoded;charset=UTF-8");
  const form = new Request(request.url, { method: "POST", headers, body: new URLSearchParams({ account: credentials.account, password: credentials.password }), signal: request.signal });
  return authenticator.authenticate(strategy, form);
}

/**
 * Keeps what a sign-in led to in the area's session and goes on: signed in, to `target`; a
 * required password change, to the area's reset page with the account and old password sealed.
 */
export async function keepSignIn(request: Request, result: SignInResult, area: SessionArea, target: string): Promise<Response> {
  const session = await getSession(request, area);
  if (result.kind === "session") startSession(session, result.engine);
  else setPendingReset(session, result.reset);
  const next = result.kind === "session" ? target : area === "admin" ? "/admin/update-info" : "/reset-password";
  return redirect(next, { headers: { "Set-Cookie": await commitSession(request, session, area) } });
}

/**
 * The action of a sign-in page: reads the form (readForm: bounded, same-site), checks it, runs the
 * area's strategy and keeps the result. `fallback` is where a signed-in visitor goes without a
 * usable `redirectTo`; `accepts` narrows the targets further (the console only returns to itself).
 */
export async function signInAction(request: Request, area: SessionArea, fallback: string, accepts: (target: string) => boolean = () => true) {
  const form = await readForm(request);
  const submission = parseWithZod(form, { schema: signInSchema });
  if (submission.status !== "success") return data(submission.reply({ hideFields: ["password"] }), { status: 400 });
  // Decided before any token exists: an odd target falls back, never fails after signing in.
  const back = safeRedirect(submission.value.redirectTo, fallback);
  const target = accepts(back) ? back : fallback;
  try {
    return await keepSignIn(request, await signIn(area, request, submission.value), area, target);
  } catch (error) {
    if (error instanceof SignInRefused) return data(submission.reply({ formErrors: [error.message], hideFields: ["password"] }), { status: 400 });
    throw error;
  }
}
