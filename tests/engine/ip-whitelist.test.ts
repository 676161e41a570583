import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestEngine, type TestEngine } from "../support/engine";
import { connectFiles } from "../support/file-client";

// The test process is the trusted proxy, so each request can come from any client address
// (X-Forwarded-For), the same way for the REST API and the file server's socket.
let t: TestEngine;
beforeAll(async () => {
  t = await startTestEngine({ FERRY_TRUSTED_PROXIES: "127.0.0.1" });
});
afterAll(() => t?.stop());

const from = (address: string) => ({ "x-forwarded-for": address });
const WHITELIST = "10.80.90.[1-100]; 192.168.0.0/16; 2001:db8::/32";
// Users are created (and signed in by createUser) without a list; each test sets it afterwards.


describe("the IP login whitelist", () => {
  it("is refused with 4019 when malformed, on create and on update, and nothing changes", async () => {
    const admin = await t.adminToken();
    for (const bad of ["10.80.90.[100-1]", "10.80.90.256", "10.0.0.0/33", "2001:db8::/129", "intranet", "10.80.90.[1-100];;10.1"]) {
      const created = await t.call("POST", "/api/admin/users", { token: admin, body: { account: "badlist", password: "Str0ng#Pass", ipWhitelist: bad } });
      expect(created.body.code, bad).toBe(4019);
      expect(created.status).toBe(400);
    }
    const list = await t.call<{ list: Array<{ account: string }> }>("GET", "/api/admin/users?search=badlist", { token: admin });
    expect(list.body.data!.list).toEqual([]);

    const user = await t.createUser("goodlist");
    expect((await t.call("PATCH", `/api/admin/users/${user.id}`, { token: admin, body: { ipWhitelist: "10.0.0.0/8" } })).body.code).toBe(200);
    const updated = await t.call("PATCH", `/api/admin/users/${user.id}`, { token: admin, body: { ipWhitelist: "10.0.0.[5-1]" } });
    expect(updated.body.code).toBe(4019);
    const after = await t.call<{ ipWhitelist: string }>("GET", `/api/admin/users/${user.id}`, { token: admin });
    expect(after.body.data!.ipWhitelist).toBe("10.0.0.0/8");
    const cleared = await t.call<{ ipWhitelist: string }>("PATCH", `/api/admin/users/${user.id}`, { token: admin, body: { ipWhitelist: "" } });
    expect(cleared.body.data!.ipWhitelist).toBe("");
  });

  it("lets a REST sign-in in from inside (ranges, CIDR, IPv6) and refuses 1091 from outside", async () => {
    const admin = await t.adminToken();
    // createUser signs in without X-Forwarded-For (an unknown address): set the list after it.
    const user = await t.createUser("ranged");
    await t.call("PATCH", `/api/admin/users/${user.id}`, { token: admin, body: { ipWhitelist: WHITELIST } });
    for (const inside of ["10.80.90.1", "10.80.90.100", "192.168.44.3", "2001:db8::7", "::ffff:192.168.1.1"]) {
      expect((await t.login("ranged", user.password, from(inside))).body.code, inside).toBe(200);
    }
    for (const outside of ["10.80.90.101", "10.80.91.5", "172.16.0.1", "2001:db9::1"]) {
      const reply = await t.login("ranged", user.password, from(outside));
      expect(reply.body.code, outside).toBe(1091);
      expect(reply.body.data).toEqual({ ip: outside });
    }
    // An address nobody names (the trusted proxy forwards none) is not on any list.
    expect((await t.login("ranged", user.password)).body.code).toBe(1091);
    // A wrong password from outside stays a wrong password: the list is told only to who knows it.
    expect((await t.login("ranged", "Wrong#Pass1", from("172.16.0.1"))).body.code).toBe(1005);
    // Without a list everyone may sign in.
    await t.call("PATCH", `/api/admin/users/${user.id}`, { token: admin, body: { ipWhitelist: "" } });
    expect((await t.login("ranged", user.password, from("172.16.0.1"))).body.code).toBe(200);
  });

  it("refuses a token refresh from outside the list, and one after the list changed", async () => {
    const admin = await t.adminToken();
    const user = await t.createUser("refresher");
    await t.call("PATCH", `/api/admin/users/${user.id}`, { token: admin, body: { ipWhitelist: WHITELIST } });
    const signedIn = await t.login("refresher", user.password, from("10.80.90.9"));
    expect(signedIn.body.code).toBe(200);
    const refresh = signedIn.body.data.refresh_token as string;
    const outside = await t.call("PUT", "/api/user/auth", { token: refresh, headers: from("203.0.113.5") });
    expect(outside.body.code).toBe(1091);
    const inside = await t.call<{ refresh_token: string }>("PUT", "/api/user/auth", { token: refresh, headers: from("10.80.90.9") });
    expect(inside.body.code).toBe(200);
    await t.call("PATCH", `/api/admin/users/${user.id}`, { token: admin, body: { ipWhitelist: "10.80.90.[1-5]" } });
    expect((await t.call("PUT", "/api/user/auth", { token: inside.body.data!.refresh_token, headers: from("10.80.90.9") })).body.code).toBe(1091);
  });

  it("refuses the file server's socket login from outside the list", async () => {
    const admin = await t.adminToken();
    const user = await t.createUser("socketed");
    await t.call("PATCH", `/api/admin/users/${user.id}`, { token: admin, body: { ipWhitelist: WHITELIST } });
    const signedIn = await t.login("socketed", user.password, from("192.168.7.7"));
    const socketToken = signedIn.body.data.websocket_token as string;

    const outside = await connectFiles(t.fileUrl, null, from("198.51.100.20"));
    try {
      const login = await outside.cmd("login", { token: socketToken });
      expect(login.code).toBe(1091);
      // Still logged out.
      expect((await outside.cmd("list", { groupId: 0, path: "/" })).code).not.toBe(200);
    } finally {
      await outside.close();
    }
    const inside = await connectFiles(t.fileUrl, null, from("192.168.7.7"));
    try {
      expect((await inside.cmd("login", { token: socketToken })).code).toBe(200);
      expect((await inside.cmd("list", { groupId: 0, path: "/" })).code).toBe(200);
    } finally {
      await inside.close();
    }
  });
});
