import type { CredentialCodec } from "../../contract/credentials";
import { ACCOUNT_TYPES } from "../../contract/users";
import type { Accounts } from "../accounts/service";
import type { Clock } from "../clock";
import type { Edition } from "../config";
import type { Db } from "../db/connect";
import { fail, FerryError } from "../errors";
import type { Settings } from "../settings/service";
import { type Lockout, type LockoutPolicy, accountKey, addressKey } from "./lockout";
import { dummyHash, hashPassword, MAX_PASSWORD_INPUT, verifyPassword } from "./password-hash";
import type { AuthContext, Tokens } from "./tokens";

export interface AuthDeps {
  db: Db;
  clock: Clock;
  codec: CredentialCodec;
  tokens: Tokens;
  lockout: Lockout;
  settings: Settings;
  accounts: Accounts;
  edition: Edition;
}

/** Sign-in, password change, refresh and sign-out: the rules of end-user spec sections 4, 5 and 7. */
export function createAuth({ db, clock, codec, tokens, lockout, settings, accounts, edition }: AuthDeps) {
  async function policy(): Promise<LockoutPolicy & { lockPeriod: number }> {
    const s = await settings.get("security");
    return { maxFailures: s.lockTimes, windowMs: s.lockMinutes * 60_000, lockPeriod: s.lockMinutes * 60 };
  }

  /**
   * Checks an account's password under the lockout rules: a running lock refuses before hashing; a
   * wrong password counts against the account and the client address, and the Nth locks them and
   * revokes the account's sessions. Unknown accounts take the same path, so they look the same.
   */
  async function checkPassword(account: string, password: string, ip: string | null) {
    const keys = ip ? [accountKey(account), addressKey(ip)] : [accountKey(account)];
    if ((await lockout.lockedUntil(keys)) > clock.now()) fail("AccountLocked");
    const user = await accounts.findByAccount(account);
    const ok = password.length <= MAX_PASSWORD_INPUT && (await verifyPassword(password, user?.password_hash ?? (await dummyHash())));
    if (ok && user) return user;

    const p = await policy();
    const [byAccount, byAddress = { failures: 0, lockedUntil: 0 }] = await Promise.all(keys.map((key) => lockout.recordFailure(key, p)));
    if (byAccount!.lockedUntil > 0 || byAddress.lockedUntil > 0) {
      if (user && byAccount!.lockedUntil > 0) await tokens.revokeUser(user.id);
      fail("AccountLocked");
    }
    const data = { loginFailTimes: Math.max(byAccount!.failures, byAddress.failures), lockPeriod: p.lockPeriod, maxLockTimes: p.maxFailures };
    throw new FerryError("WrongPassword", data, { wrongTimes: data.loginFailTimes, maxLockTimes: p.maxFailures, lockPeriod: p.lockPeriod / 60 });
  }

  return {
    async login(uk: string, ip: string | null) {
      const credentials = codec.decodeUK(uk) ?? fail("ParameterError", { field: "UK" });
      const account = credentials.account.trim();
      if (!account) fail("AccountRequired");
      if (!credentials.password) fail("PasswordRequired");
      const user = await checkPassword(account, credentials.password, ip);
      await lockout.reset(accountKey(account));
      if (user.locked) fail("AccountLocked");
      if (user.need_update_pwd) fail("NeedResetPassword", { account: user.account });
      const issued = await tokens.issue(user.id, ip ?? "");
      const p = await policy();
      return {
        ...issued,
        userId: user.id,
        account: user.account,
        accountType: user.account_type,
        isAdmin: user.role === "admin",
        softVersion: edition,
        loginFailTimes: 0,
        lockPeriod: p.lockPeriod,
        maxLockTimes: p.maxFailures,
      };
    },

    /**
     * PUT /api/user/password/update. Without a token it is the forced reset after 1074 (the old
     * password proves who is asking); with one it is the in-app change, for the token's own account.
     * Either way every session of the account is revoked afterwards.
     */
    async updatePassword(input: { account: string; oldPassword: string; newPassword: string }, auth: AuthContext | null, ip: string | null) {
      const account = input.account.trim();
      if (auth && auth.user.account.toLowerCase() !== account.toLowerCase()) fail("NoPermission");
      const oldPassword = codec.decode(input.oldPassword) ?? fail("ParameterError", { field: "oldPassword" });
      const newPassword = codec.decode(input.newPassword) ?? fail("ParameterError", { field: "newPassword" });
      const user = await checkPassword(account, oldPassword, ip);
      await lockout.reset(accountKey(account));
      if (user.locked) fail("AccountLocked");
      if (user.account_type !== ACCOUNT_TYPES.Normal) fail("AccountNotAllowed");
      if (!user.need_update_pwd && !(await settings.get("security")).allowUserSetPassword) fail("PasswordChangeNotAllowed");
      await accounts.checkNewPassword(newPassword, user.account);
      if (newPassword === oldPassword) fail("PasswordSameAsOld");
      await db.kysely
        .updateTable("users")
        .set({ password_hash: await hashPassword(newPassword), need_update_pwd: 0, updated_at: clock.now() })
        .where("id", "=", user.id)
        .execute();
      await tokens.revokeUser(user.id);
      return null;
    },

    /**
     * The spec's e-mail → account lookup. An unknown address resolves to itself, so the lookup never
     * tells a stranger which addresses have accounts; signing in with it then fails like a wrong password.
     */
    async lookupAccount(email: string) {
      const user = await accounts.findByEmail(email.trim());
      return { result: 0, account: user?.account ?? email.trim() };
    },
  };
}

export type Auth = ReturnType<typeof createAuth>;
