import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_INITIAL_PASSWORD, ADMIN_PASSWORD, codec, startTestEngine, type TestEngine } from "../support/engine";

let t: TestEngine;
beforeAll(async () => {
  // The test process is the trusted proxy, so each request can speak for a different client address.
  // Three wrong passwords from one address, across accounts, lock it (the default is 20).
  t = await startTestEngine({ FERRY_TRUSTED_PROXIES: "127.0.0.1", FERRY_LOGIN_ADDRESS_MAX_FAILURES: "3" });
});
afterAll(() => t?.stop());

const from = (ip: string) => ({ "x-forwarded-for": ip });
const setSecurity = async (body: Record<string, unknown>) => {
  const reply = await t.call("PATCH", "/api/admin/settings/security", { token: await t.adminToken(), body });
  expect(reply.body.code).toBe(200);
};

describe("first administrator sign-in", () => {
  it("forces a password change (1074) before any token is issued, then signs in with the new password", async () => {
    const first = await t.login("admin", ADMIN_INITIAL_PASSWORD, from("10.1.0.1"));
    expect(first.body).toMatchObject({ code: 1074, result: false, data: { account: "admin" } });
    expect(JSON.stringify(first.body)).not.toMatch(/token/i);

    const token = await t.adminToken();
    const info = await t.call("GET", "/api/user/info", { token });
    expect(info.body.data.user).toMatchObject({ account: "admin", isAdmin: true, needUpdatePwd: false });
    expect((await t.login("admin", ADMIN_INITIAL_PASSWORD, from("10.1.0.2"))).body.code).toBe(1005);
    expect((await t.login("admin", ADMIN_PASSWORD, from("10.1.0.3"))).body.code).toBe(200);
  });
});

describe("sign-in", () => {
  it("returns the tokens and user fields, and never a hash", async () => {
    const user = await t.createUser("alice");
    const reply = await t.login("alice", user.password, from("10.2.0.1"));
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ code: 200, value: "OK", result: true });
    const data = reply.body.data;
    expect(data).toMatchObject({ account: "alice", userId: user.id, accountType: 2, isAdmin: false, softVersion: "free", loginFailTimes: 0 });
    expect(data.token).toMatch(/^[\w-]{40,}$/);
    expect(data.refresh_token).toMatch(/^[\w-]{40,}$/);
    expect(data.websocket_token).toMatch(/^[0-9a-f]{128}$/);
    const everything = JSON.stringify([reply.body, (await t.call("GET", "/api/user/info", { token: data.token })).body]);
    expect(everything).not.toMatch(/scrypt|password_hash|passwordHash/);
  });

  it("accepts an account name in any letter case", async () => {
    await t.createUser("CaseUser");
    expect((await t.login("caseuser", "Str0ng#Pass", from("10.2.0.2"))).body.code).toBe(200);
  });

  it("treats an unknown account exactly like a wrong password", async () => {
    const reply = await t.login("nobody_here", "Whatever#1", from("10.2.0.3"));
    expect(reply.body).toMatchObject({ code: 1005, data: { loginFailTimes: 1, lockPeriod: 180, maxLockTimes: 5 } });
  });

  it("refuses a malformed UK with a 400-family code", async () => {
    const reply = await t.call("POST", "/api/user/login", { body: { UK: "not-an-encoding" } });
    expect(reply.body.code).toBe(400);
  });

  it("signs in with an e-mail address, and the lookup never reveals whether one is registered", async () => {
    const user = await t.createUser("mailer", { email: "Mailer@Example.com" });
    const known = await t.call("POST", "/api/user/account/lookup", { body: { action: "get_account", email: "mailer@example.com" } });
    expect(known.body.data).toEqual({ result: 0, account: "mailer@example.com" });
    const unknown = await t.call("POST", "/api/user/account/lookup", { body: { action: "get_account", email: "ghost@example.com" } });
    expect(unknown.body.data).toEqual({ result: 0, account: "ghost@example.com" });
    expect((await t.login("ghost@example.com", "Str0ng#Pass", from("10.2.0.4"))).body.code).toBe(1005);
    const signedIn = await t.login(known.body.data.account, user.password, from("10.2.0.5"));
    expect(signedIn.body).toMatchObject({ code: 200, data: { account: "mailer", userId: user.id } });
  });
});

describe("lockout", () => {
  it("counts wrong passwords, locks at N within M minutes, and unlocks after the period", async () => {
    await setSecurity({ lockTimes: 3, lockMinutes: 5 });
    const user = await t.createUser("locky");
    const other = await t.tokenFor("locky", user.password);

    const first = await t.login("locky", "Wrong#Pass1", from("10.3.0.1"));
    expect(first.body).toMatchObject({ code: 1005, data: { loginFailTimes: 1, lockPeriod: 300, maxLockTimes: 3 } });
    expect(first.body.message).toBe(
      "Wrong password: failed attempts 1 of 3 within 5 min; at the limit the account is locked",
    );
    const zh = await t.login("locky", "Wrong#Pass1", { ...from("10.3.0.2"), "accept-language": "zh-CN,zh;q=0.9" });
    expect(zh.body.message).toBe("您已输错密码 2 次，若在 5 分钟内输错 3 次，账号将被锁定");

    expect((await t.login("locky", "Wrong#Pass1", from("10.3.0.3"))).body.code).toBe(1050);
    // Locked: even the right password is refused, and the sessions handed out before are revoked.
    expect((await t.login("locky", user.password, from("10.3.0.4"))).body.code).toBe(1050);
    expect((await t.call("GET", "/api/user/info", { token: other })).body.code).toBe(1009);

    t.clock.advance(5 * 60_000 - 1000);
    expect((await t.login("locky", user.password, from("10.3.0.5"))).body.code).toBe(1050);
    t.clock.advance(2000);
    expect((await t.login("locky", user.password, from("10.3.0.6"))).body.code).toBe(200);
    await setSecurity({ lockTimes: 5, lockMinutes: 3 });
  });

  it("forgets failures older than the window", async () => {
    await setSecurity({ lockTimes: 3, lockMinutes: 2 });
    const user = await t.createUser("windowed");
    expect((await t.login("windowed", "Wrong#Pass1", from("10.4.0.1"))).body.data.loginFailTimes).toBe(1);
    expect((await t.login("windowed", "Wrong#Pass1", from("10.4.0.2"))).body.data.loginFailTimes).toBe(2);
    t.clock.advance(2 * 60_000 + 1);
    expect((await t.login("windowed", "Wrong#Pass1", from("10.4.0.3"))).body.data.loginFailTimes).toBe(1);
    expect((await t.login("windowed", user.password, from("10.4.0.4"))).body.code).toBe(200);
    // A success clears the account's count.
    expect((await t.login("windowed", "Wrong#Pass1", from("10.4.0.5"))).body.data.loginFailTimes).toBe(1);
    await setSecurity({ lockTimes: 5, lockMinutes: 3 });
  });

  it("counts 40 parallel wrong passwords exactly", async () => {
    await setSecurity({ lockTimes: 30, lockMinutes: 10 });
    const user = await t.createUser("parallel");
    const replies = await Promise.all(
      Array.from({ length: 40 }, (_, i) => t.login("parallel", `Wrong#Pass${i}`, from(`10.5.${Math.floor(i / 200)}.${(i % 200) + 1}`))),
    );
    const wrong = replies.filter((r) => r.body.code === 1005).map((r) => r.body.data.loginFailTimes as number);
    const locked = replies.filter((r) => r.body.code === 1050);
    // The 30th failure locks: 29 answers count 1..29 once each, the other 11 say locked.
    expect(wrong.sort((a, b) => a - b)).toEqual(Array.from({ length: 29 }, (_, i) => i + 1));
    expect(locked).toHaveLength(11);
    expect((await t.login("parallel", user.password, from("10.5.9.9"))).body.code).toBe(1050);
    await setSecurity({ lockTimes: 5, lockMinutes: 3 });
  });

  it("locks a client address that guesses across many accounts", async () => {
    const victim = await t.createUser("victim");
    const codes = [];
    for (const account of ["guess_a", "guess_b", "guess_c"]) codes.push((await t.login(account, "Wrong#Pass1", from("10.6.6.6"))).body.code);
    // FERRY_LOGIN_ADDRESS_MAX_FAILURES=3: the third locks the address (4116), whatever the accounts' own limit.
    expect(codes).toEqual([1005, 1005, 4116]);
    // The address is locked, even for a right password; other addresses are not.
    expect((await t.login("victim", victim.password, from("10.6.6.6"))).body.code).toBe(4116);
    expect((await t.login("victim", victim.password, from("10.6.6.7"))).body.code).toBe(200);
  });

  it("counts per account only when a trusted proxy names no client (the web process)", async () => {
    await setSecurity({ lockTimes: 3, lockMinutes: 3 });
    const user = await t.createUser("behind_web");
    // No X-Forwarded-For from the trusted proxy: wrong passwords for other accounts lock no address.
    for (const account of ["web_a", "web_b", "web_c", "web_d"]) expect((await t.login(account, "Wrong#Pass1")).body.code).toBe(1005);
    expect((await t.login("behind_web", user.password)).body.code).toBe(200);
    await setSecurity({ lockTimes: 5, lockMinutes: 3 });
  });

  it("believes X-Forwarded-For only from a configured proxy", async () => {
    const direct = await startTestEngine({ FERRY_LOGIN_ADDRESS_MAX_FAILURES: "3" });
    try {
      const user = await direct.createUser("spoofed");
      const codes = [];
      for (let i = 0; i < 3; i++) codes.push((await direct.login(`someone_${i}`, "Wrong#Pass1", from(`203.0.113.${i}`))).body.code);
      // Three different spoofed addresses still count as the one real address, which is now locked.
      expect(codes).toEqual([1005, 1005, 4116]);
      expect((await direct.login("spoofed", user.password, from("198.51.100.1"))).body.code).toBe(4116);
    } finally {
      await direct.stop();
    }
  });
});

describe("tokens", () => {
  it("refreshes the access token with the refresh token, and only with it", async () => {
    const user = await t.createUser("refresher");
    const login = (await t.login("refresher", user.password, from("10.7.0.1"))).body.data;
    expect((await t.call("PUT", "/api/user/auth", { token: login.token })).body.code).toBe(1009);
    const refreshed = await t.call("PUT", "/api/user/auth", { token: login.refresh_token });
    expect(refreshed.body).toMatchObject({ code: 200, data: { expires_in: 3600 } });
    expect(refreshed.body.data.token).not.toBe(login.token);
    expect(refreshed.body.data.refresh_token).toMatch(/^[\w-]{40,}$/);
    expect(refreshed.body.data.refresh_token).not.toBe(login.refresh_token);
    expect((await t.call("GET", "/api/user/info", { token: refreshed.body.data.token })).body.code).toBe(200);
    // The replaced access token stops working; a refresh token is not an access token.
    expect((await t.call("GET", "/api/user/info", { token: login.token })).body.code).toBe(1009);
    expect((await t.call("GET", "/api/user/info", { token: login.refresh_token })).body.code).toBe(1009);
  });

  it("expires access tokens after an hour and refresh tokens after seven days", async () => {
    const user = await t.createUser("expiring");
    const login = (await t.login("expiring", user.password, from("10.7.0.2"))).body.data;
    t.clock.advance(3600 * 1000 + 1);
    expect((await t.call("GET", "/api/user/info", { token: login.token })).body.code).toBe(1009);
    const refreshed = await t.call("PUT", "/api/user/auth", { token: login.refresh_token });
    expect((await t.call("GET", "/api/user/info", { token: refreshed.body.data.token })).body.code).toBe(200);
    t.clock.advance(7 * 24 * 3600 * 1000);
    expect((await t.call("PUT", "/api/user/auth", { token: login.refresh_token })).body.code).toBe(1009);
  });

  it("revokes the session at logout, for both tokens", async () => {
    const user = await t.createUser("leaver");
    const login = (await t.login("leaver", user.password, from("10.7.0.3"))).body.data;
    const keep = await t.tokenFor("leaver", user.password);
    expect((await t.call("POST", "/api/user/logout", { token: login.token })).body.code).toBe(200);
    expect((await t.call("GET", "/api/user/info", { token: login.token })).body.code).toBe(1009);
    expect((await t.call("PUT", "/api/user/auth", { token: login.refresh_token })).body.code).toBe(1009);
    // Another session of the same account is untouched.
    expect((await t.call("GET", "/api/user/info", { token: keep })).body.code).toBe(200);
  });

  it("answers 1009 to missing, malformed and unknown tokens", async () => {
    expect((await t.call("GET", "/api/user/info")).body.code).toBe(1009);
    expect((await t.call("GET", "/api/user/info", { headers: { authorization: "Basic abc" } })).body.code).toBe(1009);
    expect((await t.call("GET", "/api/user/info", { token: "x".repeat(43) })).body.code).toBe(1009);
  });

  it("ends the sessions of a locked or deleted user at once", async () => {
    const admin = await t.adminToken();
    const locked = await t.createUser("tolock");
    await t.call("POST", `/api/admin/users/${locked.id}/lock`, { token: admin });
    expect((await t.call("GET", "/api/user/info", { token: locked.token })).body.code).toBe(1009);
    expect((await t.login("tolock", locked.password, from("10.7.0.4"))).body.code).toBe(1050);
    await t.call("POST", `/api/admin/users/${locked.id}/unlock`, { token: admin });
    expect((await t.login("tolock", locked.password, from("10.7.0.5"))).body.code).toBe(200);

    const deleted = await t.createUser("todelete");
    await t.call("DELETE", `/api/admin/users/${deleted.id}`, { token: admin });
    expect((await t.call("GET", "/api/user/info", { token: deleted.token })).body.code).toBe(1009);
  });
});

describe("password update", () => {
  let address = 0;
  const update = (account: string, oldPassword: string, newPassword: string, token?: string) =>
    t.call("PUT", "/api/user/password/update", {
      token,
      headers: from(`10.9.${Math.floor(++address / 200)}.${(address % 200) + 1}`),
      body: { account, oldPassword: codec.encode(oldPassword), newPassword: codec.encode(newPassword), needUpdatePwd: false },
    });

  it("refuses every password that breaks a rule, and changes nothing", async () => {
    const user = await t.createUser("ruler");
    const refused: Array<[string, number]> = [
      ["Ab1!xyz", 1023], // 7 characters
      ["Abcdefghij1234567890!", 1023], // 21 characters
      ["Abc def1!", 1023], // a space
      ["Abc密码def1!", 1023], // Chinese characters
      ["12345678", 1023], // digits only
      ["abcdefgh", 1023], // lowercase only
      ["ABCDEFGH", 1023], // uppercase only
      ["abcd1234", 1023], // digits and lowercase
      ["ABCD1234", 1023], // digits and uppercase
      ["xRuler#12", 1023], // contains the account, in another case
      ["P@ssw0rd", 4125], // on the weak-password list
      [user.password, 4126], // the same as before
    ];
    for (const [password, code] of refused) {
      const reply = await update("ruler", user.password, password, user.token);
      expect({ password, code: reply.body.code }).toEqual({ password, code });
    }
    expect((await t.call("GET", "/api/user/info", { token: user.token })).body.code).toBe(200);
    expect((await t.login("ruler", user.password, from("10.8.0.1"))).body.code).toBe(200);
  });

  it("accepts passwords that meet the rules, and revokes every session afterwards", async () => {
    const user = await t.createUser("changer");
    const second = await t.tokenFor("changer", user.password);
    let current = user.password;
    let token = user.token;
    for (const next of ["Abcdef1!", "abcdefG1", "ABCdef!!", "Abcdefghij123456789!", "Ünïcode#99"]) {
      const reply = await update("changer", current, next, token);
      expect({ next, code: reply.body.code }).toEqual({ next, code: 200 });
      expect((await t.call("GET", "/api/user/info", { token })).body.code).toBe(1009);
      current = next;
      token = await t.tokenFor("changer", current);
    }
    expect((await t.call("GET", "/api/user/info", { token: second })).body.code).toBe(1009);
    expect((await t.login("changer", user.password, from("10.8.0.2"))).body.code).toBe(1005);
  });

  it("checks the old password under the lockout rules, and only for the token's own account", async () => {
    const a = await t.createUser("own_a");
    await t.createUser("own_b");
    expect((await update("own_b", "Str0ng#Pass", "Newer#Pass1", a.token)).body.code).toBe(1042);
    const wrong = await update("own_a", "Wrong#Old1", "Newer#Pass1", a.token);
    expect(wrong.body).toMatchObject({ code: 1005, data: { loginFailTimes: 1 } });
    expect((await t.login("own_b", "Str0ng#Pass", from("10.8.0.3"))).body.code).toBe(200);
  });

  it("lets a user forced to change complete the reset without a token", async () => {
    await t.call("POST", "/api/admin/users", { token: await t.adminToken(), body: { account: "forced", password: "Str0ng#Pass" } });
    expect((await t.login("forced", "Str0ng#Pass", from("10.8.0.4"))).body.code).toBe(1074);
    expect((await update("forced", "Str0ng#Pass", "Fresh#Pass22")).body.code).toBe(200);
    expect((await t.login("forced", "Fresh#Pass22", from("10.8.0.5"))).body.code).toBe(200);
  });

  it("honours the setting that stops users choosing their own password", async () => {
    const user = await t.createUser("fixedpw");
    await setSecurity({ allowUserSetPassword: false });
    expect((await update("fixedpw", user.password, "Other#Pass1", user.token)).body.code).toBe(4127);
    await setSecurity({ allowUserSetPassword: true });
  });

  it("refuses an in-app change for accounts that authenticate elsewhere", async () => {
    const user = await t.createUser("ldapper", { accountType: 4 });
    expect((await update("ldapper", user.password, "Other#Pass1", user.token)).body.code).toBe(1018);
  });
});
