import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ACCOUNT_TYPES } from "../../contract/users";
import { codec, startTestEngine, type TestEngine } from "../support/engine";
import { freePort } from "../support/ports";
import { startTestSlapd, type TestSlapd } from "../support/slapd";

/*
 * The LDAP/AD way against a real slapd (Debian's package) that this file starts on a free port with
 * a throw-away directory: the Test button's codes, sign-in of directory accounts (created on first
 * sign-in as Domain accounts), who else may sign in, the import screen's search and import.
 */

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const ALICE = { uid: "alice", cn: "Alice Liddell", mail: "alice@ferry.test", password: "Wonder#Land-1" };
const BOB = { uid: "bob", cn: "Bob Builder", mail: "bob@ferry.test", password: "Can#We-Fix-It" };
const CAROL = { uid: "carol", cn: "Carol Danvers", password: "Higher#Further-3" };
/** A directory name Ferry cannot take as an account name (a dot). */
const DOTTED = { uid: "john.doe", cn: "John Doe", password: "Plain#Jane-4" };

let t: TestEngine;
let slapd: TestSlapd;
let admin: string;

const settingsUrl = "/api/admin/settings/authentication";

function ldapSettings(over: Record<string, unknown> = {}) {
  return {
    way: 1,
    ldapServer: slapd.url,
    ldapDomain: "ferry.test",
    ldapBase: slapd.base,
    ldapTestAccount: slapd.readerDn,
    ldapTestPassword: codec.encode(slapd.readerPassword),
    ...over,
  };
}

beforeAll(async () => {
  slapd = await startTestSlapd([ALICE, BOB, CAROL, DOTTED]);
  t = await startTestEngine();
  admin = await t.adminToken();
});
afterAll(async () => {
  await t?.stop();
  await slapd?.stop();
});

describe("the Test button", () => {
  it("answers 1056 when nothing listens at the server address", async () => {
    const closed = await freePort();
    const reply = await t.call("POST", `${settingsUrl}/ldap/test`, { token: admin, body: { ...ldapSettings({ ldapServer: `ldap://127.0.0.1:${closed}` }), way: undefined } });
    expect(reply.body.code).toBe(1056);
  });

  it("answers 1057 when the test account's password is wrong, and 200 when it is right", async () => {
    const { way: _w, ...form } = ldapSettings();
    const wrong = await t.call("POST", `${settingsUrl}/ldap/test`, { token: admin, body: { ...form, ldapTestPassword: codec.encode("not-the-password") } });
    expect(wrong.body.code).toBe(1057);
    const unknown = await t.call("POST", `${settingsUrl}/ldap/test`, { token: admin, body: { ...form, ldapTestAccount: `cn=nobody,${slapd.base}` } });
    expect(unknown.body.code).toBe(1057);
    const right = await t.call("POST", `${settingsUrl}/ldap/test`, { token: admin, body: form });
    expect(right.body.code).toBe(200);
    expect(right.body.data).toEqual({ connected: true, bound: true });
  });

  it("is the administrator's alone", async () => {
    const user = await t.createUser("ldapnosy");
    const reply = await t.call("POST", `${settingsUrl}/ldap/test`, { token: user.token, body: {} });
    expect(reply.body.code).toBe(1008);
  });
});

describe("signing in under LDAP/AD", () => {
  beforeAll(async () => {
    const saved = await t.call("PATCH", settingsUrl, { token: admin, body: ldapSettings() });
    expect(saved.body.code).toBe(200);
    expect(saved.body.data).toMatchObject({ way: 1, ldapServer: slapd.url, ldapBase: slapd.base, hasLdapTestPassword: true });
    expect(JSON.stringify(saved.body.data)).not.toContain(slapd.readerPassword);
  });

  it("the stored settings pass the Test button without the form's values", async () => {
    const reply = await t.call("POST", `${settingsUrl}/ldap/test`, { token: admin, body: {} });
    expect(reply.body.code).toBe(200);
  });

  it("a directory account signs in with its directory password and becomes a Domain account", async () => {
    const wrong = await t.login("alice", "Wonder#Land-2");
    expect(wrong.body.code).toBe(1005);
    const reply = await t.login("alice", ALICE.password);
    expect(reply.body.code).toBe(200);
    expect(reply.body.data.accountType).toBe(ACCOUNT_TYPES.Domain);
    const list = await t.call("GET", "/api/admin/users?search=alice", { token: admin });
    expect(list.body.data.list).toHaveLength(1);
    expect(list.body.data.list[0]).toMatchObject({ account: "alice", accountType: ACCOUNT_TYPES.Domain, fullname: "Alice Liddell", email: "alice@ferry.test" });
    // The second sign-in finds the account it made.
    expect((await t.login("alice", ALICE.password)).body.code).toBe(200);
    expect((await t.call("GET", "/api/admin/users?search=alice", { token: admin })).body.data.total).toBe(1);
  });

  it("signs in with the directory e-mail address too", async () => {
    const reply = await t.login("alice@ferry.test", ALICE.password);
    expect(reply.body.code).toBe(200);
    expect(reply.body.data.account).toBe("alice");
  });

  it("refuses a name the directory does not know, and a password change for a directory account", async () => {
    expect((await t.login("nobody", "Wonder#Land-1")).body.code).toBe(1005);
    const change = await t.call("PUT", "/api/user/password/update", {
      body: { account: "alice", oldPassword: codec.encode(ALICE.password), newPassword: codec.encode("Other#Pass-99") },
    });
    expect(change.body.code).toBe(1005);
    expect((await t.login("alice", ALICE.password)).body.code).toBe(200);
  });

  it("manually created accounts still sign in with their own password, and so does the administrator", async () => {
    await t.createUser("localdana", { password: "Local#Dana-1" });
    expect((await t.login("localdana", "Local#Dana-1")).body.code).toBe(200);
    expect((await t.login("admin", "Ferry#Chief2026")).body.code).toBe(200);
  });

  it("a directory name that is no Ferry account name is refused with 1018, and nothing is created", async () => {
    const reply = await t.login("john.doe", DOTTED.password);
    expect(reply.body.code).toBe(1018);
    expect((await t.call("GET", "/api/admin/users?search=john", { token: admin })).body.data.total).toBe(0);
  });

  it("an unreachable directory answers 1056 and does not count as a wrong password", async () => {
    const closed = await freePort();
    await t.call("PATCH", settingsUrl, { token: admin, body: { ldapServer: `ldap://127.0.0.1:${closed}` } });
    for (let i = 0; i < 6; i++) expect((await t.login("alice", ALICE.password)).body.code).toBe(1056);
    await t.call("PATCH", settingsUrl, { token: admin, body: { ldapServer: slapd.url } });
    // Six failures would have locked the account (lockTimes 5) had they been counted.
    expect((await t.login("alice", ALICE.password)).body.code).toBe(200);
  });
});

describe("the import screen", () => {
  it("searches the directory: name, e-mail and account, with what can be imported", async () => {
    const reply = await t.call("GET", "/api/admin/ldap/accounts?search=o", { token: admin });
    expect(reply.body.code).toBe(200);
    const byAccount = Object.fromEntries(reply.body.data.list.map((a: { account: string }) => [a.account, a]));
    expect(Object.keys(byAccount).sort()).toEqual(["bob", "carol", "john.doe"]);
    expect(byAccount.bob).toMatchObject({ fullname: "Bob Builder", email: "bob@ferry.test", importable: true, exists: false, dn: `uid=bob,ou=people,${slapd.base}` });
    expect(byAccount["john.doe"]).toMatchObject({ importable: false });
    const all = await t.call("GET", "/api/admin/ldap/accounts", { token: admin });
    expect(all.body.data.list.map((a: { account: string }) => a.account).sort()).toEqual(["alice", "bob", "carol", "john.doe"]);
    expect(all.body.data.list.find((a: { account: string }) => a.account === "alice").exists).toBe(true);
    const limited = await t.call("GET", "/api/admin/ldap/accounts?limit=2", { token: admin });
    expect(limited.body.data).toMatchObject({ truncated: true });
    expect(limited.body.data.list).toHaveLength(2);
  });

  it("takes filter characters as text", async () => {
    for (const search of ["*", "*)(uid=*", "\\2a", "a)(objectClass=*"]) {
      const reply = await t.call("GET", `/api/admin/ldap/accounts?search=${encodeURIComponent(search)}`, { token: admin });
      expect(reply.body.code).toBe(200);
      expect(reply.body.data.list).toEqual([]);
    }
  });

  it("imports picked accounts as Domain accounts with the default permission, skipping the rest with a reason", async () => {
    await t.call("PATCH", "/api/admin/settings/security", { token: admin, body: { defaultPermission: 2 | 4 | 128 } });
    const reply = await t.call("POST", "/api/admin/ldap/import", { token: admin, body: { accounts: ["bob", "john.doe", "ghost", "alice"] } });
    expect(reply.body.code).toBe(200);
    expect(reply.body.data.imported.map((i: { account: string }) => i.account)).toEqual(["bob"]);
    expect(reply.body.data.skipped).toEqual([
      { account: "john.doe", reason: "name-format" },
      { account: "ghost", reason: "not-found" },
      { account: "alice", reason: "exists" },
    ]);
    const bob = await t.call("GET", `/api/admin/users/${reply.body.data.imported[0].id}`, { token: admin });
    expect(bob.body.data).toMatchObject({ account: "bob", accountType: ACCOUNT_TYPES.Domain, fullname: "Bob Builder", email: "bob@ferry.test", needUpdatePwd: false });
    expect(bob.body.data.permission & (2 | 4 | 128)).toBe(2 | 4 | 128);
    // The imported account signs in with its directory password only.
    expect((await t.login("bob", "Str0ng#Pass")).body.code).toBe(1005);
    const signedIn = await t.login("bob", BOB.password);
    expect(signedIn.body.code).toBe(200);
    expect(signedIn.body.data.userId).toBe(bob.body.data.id);
  });

  it("refuses more than 100 accounts at once, and a non-administrator", async () => {
    const many = await t.call("POST", "/api/admin/ldap/import", { token: admin, body: { accounts: Array.from({ length: 101 }, (_, i) => `u${i}`) } });
    expect(many.body.code).toBe(400);
    const user = await t.createUser("ldapnosy2");
    expect((await t.call("GET", "/api/admin/ldap/accounts", { token: user.token })).body.code).toBe(1008);
    expect((await t.call("POST", "/api/admin/ldap/import", { token: user.token, body: { accounts: ["carol"] } })).body.code).toBe(1008);
  });
});

describe("after switching back to local only", () => {
  it("directory accounts no longer sign in; manually created ones do", async () => {
    const saved = await t.call("PATCH", settingsUrl, { token: admin, body: { way: 0 } });
    expect(saved.body.code).toBe(200);
    expect((await t.login("alice", ALICE.password)).body.code).toBe(1005);
    expect((await t.login("carol", CAROL.password)).body.code).toBe(1005);
    expect((await t.login("localdana", "Local#Dana-1")).body.code).toBe(200);
  });

  it("refuses the LDAP way without a server or base", async () => {
    await t.call("PATCH", settingsUrl, { token: admin, body: { ldapServer: "", ldapBase: "" } });
    const reply = await t.call("PATCH", settingsUrl, { token: admin, body: { way: 1 } });
    expect(reply.body.code).toBe(400);
    expect((await t.call("GET", settingsUrl, { token: admin })).body.data.way).toBe(0);
  });
});
