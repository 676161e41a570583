import type { LockedData } from "../../contract/auth";
import type { CredentialCodec } from "../../contract/credentials";
import { ACCOUNT_TYPES } from "../../contract/users";
import { EMAIL_PATTERN } from "../../contract/validation";
import type { Users } from "../users/service";
import type { Clock } from "../clock";
import type { Edition } from "../config";
import type { Db } from "../db/connect";
import { fail, FerryError } from "../errors";
import type { Settings } from "../settings/service";
import type { RateLimits } from "../limits/rate-limits";
import { type CounterKey, type Lockout, type LockoutPolicy, accountKey, addressKey } from "./lockout";
import { forgetInitialAdminPassword } from "../data-dir";
import { requireWhitelisted, requireWhitelistedUser } from "./ip-whitelist";
import { dummyHash, hashPassword, MAX_PASSWORD_INPUT, verifyPassword } from "./password-hash";
import type { AuthContext, Tokens } from "./tokens";
import type { Authentication } from "../authentication/service";
import type { Recorder } from "../logs/recorder";

export interface AuthDeps {
  db: Db;
  clock: Clock;
  codec: CredentialCodec;
  tokens: Tokens;
  lockout: Lockout;
  /** Fixed-window counters per key (account look-ups per address). */
  rates: RateLimits;
  settings: Settings;
  users: Users;
  /** The edition in effect now (docs/licence.md). */
  edition: () => Promise<Edition>;
  /** Where the initial administrator password file lives (removed at the administrator's first change). */
  config: { dataDir: string };
  /** Per client address, across accounts (FERRY_LOGIN_ADDRESS_MAX_FAILURES, FERRY_LOOKUP_ADDRESS_MAX, FERRY_LOGIN_ADDRESS_WINDOW). */
  addressLimits: { maxFailures: number; maxLookups: number; windowMs: number };
  /** The authentication ways (server/authentication/): who a sign-in is under the way in force. */
  ways: Pick<Authentication, "verify">;
  /** The operation log (server/logs/): every sign-in and failed sign-in. */
  recorder?: Pick<Recorder, "recordOperation">;
}

/** Sign-in, password change, refresh and sign-out: the rules of end-user spec sections 4, 5 and 7. */
export function createAuth({ db, clock, codec, tokens, lockout, rates, settings, users, edition, addressLimits, config, ways, recorder }: AuthDeps) {
  async function policy(): Promise<LockoutPolicy & { lockPeriod: number }> {
    const s = await settings.get("security");
    return { maxFailures: s.lockTimes, windowMs: s.lockMinutes * 60_000, lockPeriod: s.lockMinutes * 60 };
  }

  /**
   * The data of a 1050/4116 answer for a lock that ends by itself: when it ends (unix seconds) and the
   * seconds left, so the sign-in page can say how long to wait. An administrator's lock has none.
   */
  const lockedFor = (untilMs: number): LockedData => ({ lockedUntil: Math.ceil(untilMs / 1000), retryAfter: Math.max(1, Math.ceil((untilMs - clock.now()) / 1000)) });

  /** Account names never contain "@" (contract/validation.ts), so a name with one is an e-mail address. */
  const findUser = (account: string) => (account.includes("@") ? users.findByEmail(account) : users.findByAccount(account));

  /**
   * Checks an account's password under the lockout rules. The attempt is counted against the account
   * (settings lockTimes/lockMinutes) and the client address (addressLimits) before the password is
   * hashed, so parallel guesses cannot outrun the limit; a key that is locked or at its limit refuses
   * at once. A wrong password that reaches the account's limit locks it and revokes its sessions
   * (1050); one that reaches the address's limit locks the address (4116). A right password clears
   * the account's count and gives the address its attempt back. Unknown accounts (and e-mail
   * addresses) take the same path and cost the same hash, so they look the same.
   *
   * `viaWays`: a sign-in, where the authentication way in force decides who may sign in and checks
   * the password (docs/authentication.md); a way that cannot be asked gives the attempt back and
   * says why (1056, 4114, ...). Without it (the password change), only the local password counts.
   */
  async function checkPassword(account: string, password: string, ip: string | null, viaWays = false) {
    const user = await findUser(account);
    const p = await policy();
    const byAccount: CounterKey = { key: accountKey(user?.account ?? account), policy: p };
    const keys = [byAccount];
    if (ip) keys.push({ key: addressKey(ip), policy: { maxFailures: addressLimits.maxFailures, windowMs: addressLimits.windowMs } });

    const taken = await lockout.take(keys);
    if (taken.refusedBy !== null) return fail(taken.refusedBy === byAccount.key ? "AccountLocked" : "IpLocked", lockedFor(taken.lockedUntil));
    const local = async (hash: string | undefined) => verifyPassword(password, hash ?? (await dummyHash()));
    let proven: typeof user | null;
    try {
      if (password.length > MAX_PASSWORD_INPUT) proven = null;
      else if (viaWays) proven = await ways.verify(user, account, password, ip, local);
      else proven = (await local(user?.password_hash)) && user ? user : null;
    } catch (error) {
      await lockout.succeed([], keys.map((k) => k.key));
      throw error;
    }
    if (proven) {
      await lockout.succeed([byAccount.key], keys.slice(1).map((k) => k.key));
      return proven;
    }

    const locked = await lockout.fail(keys, taken.counts);
    const lockEnd = (key: string) => clock.now() + (keys.find((k) => k.key === key)?.policy.windowMs ?? 0);
    if (locked.includes(byAccount.key)) {
      if (user) await tokens.revokeUser(user.id);
      fail("AccountLocked", lockedFor(lockEnd(byAccount.key)));
    }
    if (locked.length > 0) fail("IpLocked", lockedFor(lockEnd(locked[0]!)));
    const failures = taken.counts.get(byAccount.key) ?? 1;
    const data = { loginFailTimes: failures, lockPeriod: p.lockPeriod, maxLockTimes: p.maxFailures };
    throw new FerryError("WrongPassword", data, { wrongTimes: failures, maxLockTimes: p.maxFailures, lockPeriod: p.lockPeriod / 60 });
  }

  return {
    async login(uk: string, ip: string | null) {
      const credentials = codec.decodeUK(uk) ?? fail("ParameterError", { field: "UK" });
      const account = credentials.account.trim();
      if (!account) fail("AccountRequired");
      if (!credentials.password) fail("PasswordRequired");
      // Longer than any password can be: refused as bad input, never hashed nor counted as a guess.
      if (credentials.password.length > MAX_PASSWORD_INPUT) fail("ParameterError", { field: "UK" });
      let known: { id: number; account: string; account_type: number; role: string } | null = null;
      let user: Awaited<ReturnType<typeof checkPassword>>;
      try {
        user = await checkPassword(account, credentials.password, ip, true);
        known = user;
        if (user.locked) fail("AccountLocked");
        // After the password, so the whitelist tells nothing to someone who does not know it.
        requireWhitelisted(user.ip_whitelist, ip);
        if (user.need_update_pwd) fail("NeedResetPassword", { account: user.account });
      } catch (error) {
        // Who tried and why it failed (an unknown account is logged by the name that was typed).
        known ??= (await findUser(account).catch(() => null)) ?? null;
        recorder?.recordOperation({
          userId: known?.id ?? null,
          account: known?.account ?? account,
          accountType: known?.account_type ?? 0,
          role: known?.role === "admin" ? "admin" : "user",
          address: ip,
          kind: "signin_failed",
          target: account,
          result: "failed",
          code: error instanceof FerryError ? error.code : 0,
        });
        throw error;
      }
      recorder?.recordOperation({ userId: user.id, account: user.account, accountType: user.account_type, role: user.role === "admin" ? "admin" : "user", address: ip, kind: "signin", target: user.account });
      const issued = await tokens.issue(user.id, ip ?? "");
      const p = await policy();
      return {
        ...issued,
        userId: user.id,
        account: user.account,
        accountType: user.account_type,
        isAdmin: user.role === "admin",
        softVersion: await edition(),
        loginFailTimes: 0,
        lockPeriod: p.lockPeriod,
        maxLockTimes: p.maxFailures,
      };
    },

    /** PUT /api/user/auth: a refresh is a sign-in too, so it meets the user's IP whitelist (1091). */
    async refresh(refreshToken: string, auth: AuthContext, ip: string | null) {
      await requireWhitelistedUser(db, auth.user.id, ip);
      return (await tokens.rotate(refreshToken)) ?? fail("InvalidToken");
    },

    /**
     * PUT /api/user/password/update. Without a token it is the forced reset after 1074 (the old
     * password proves who is asking); with one it is the in-app change, for the token's own account.
     * Either way every session of the account is revoked afterwards.
     */
    async updatePassword(input: { account: string; oldPassword: string; newPassword: string }, auth: AuthContext | null, ip: string | null) {
      const account = input.account.trim();
      if (auth && auth.user.account.toLowerCase() !== account.toLowerCase() && !account.includes("@")) fail("NoPermission");
      const oldPassword = codec.decode(input.oldPassword) ?? fail("ParameterError", { field: "oldPassword" });
      const newPassword = codec.decode(input.newPassword) ?? fail("ParameterError", { field: "newPassword" });
      if (oldPassword.length > MAX_PASSWORD_INPUT) fail("ParameterError", { field: "oldPassword" });
      if (newPassword.length > MAX_PASSWORD_INPUT) fail("ParameterError", { field: "newPassword" });
      const user = await checkPassword(account, oldPassword, ip);
      if (auth && auth.user.id !== user.id) fail("NoPermission");
      if (user.locked) fail("AccountLocked");
      if (user.account_type !== ACCOUNT_TYPES.Normal) fail("AccountNotAllowed");
      if (!user.need_update_pwd && !(await settings.get("security")).allowUserSetPassword) fail("PasswordChangeNotAllowed");
      await users.checkNewPassword(newPassword, user.account);
      if (newPassword === oldPassword) fail("PasswordSameAsOld");
      await db.kysely
        .updateTable("users")
        .set({ password_hash: await hashPassword(newPassword), need_update_pwd: 0, updated_at: clock.now() })
        .where("id", "=", user.id)
        .execute();
      await tokens.revokeUser(user.id);
      // The administrator chose a password: the initial one (if generated) is no longer kept.
      if (user.role === "admin") forgetInitialAdminPassword(config.dataDir);
      return null;
    },

    /**
     * The spec's e-mail → account lookup. It answers every well-formed address with itself, known
     * or not, without reading the users table, so the answer and its work never tell a stranger which
     * addresses have accounts; sign-in and the password change accept the address in place of the
     * account name. Limited per client address (FERRY_LOOKUP_ADDRESS_MAX per FERRY_LOGIN_ADDRESS_WINDOW).
     */
    async lookupAccount(email: string, ip: string | null) {
      const address = email.trim();
      if (ip) {
        const taken = await rates.take(`rate:lookup:${ip.slice(0, 64)}`, addressLimits.maxLookups, addressLimits.windowMs);
        if (!taken.allowed) fail("IpLocked");
      }
      if (!EMAIL_PATTERN.test(address)) fail("ParameterError", { field: "email" });
      return { result: 0, account: address };
    },
  };
}

export type Auth = ReturnType<typeof createAuth>;
