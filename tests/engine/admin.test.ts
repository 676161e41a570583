import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Permission } from "../../contract/permissions";
import { startTestEngine, type TestEngine } from "../support/engine";

let t: TestEngine;
let admin: string;
beforeAll(async () => {
  t = await startTestEngine();
  admin = await t.adminToken();
});
afterAll(() => t?.stop());

describe("administrator API: users", () => {
  it("creates a user with the spec's fields, defaults and home folder", async () => {
    const reply = await t.call("POST", "/api/admin/users", {
      token: admin,
      body: { account: "carol", password: "Str0ng#Pass", fullname: "Carol", email: "carol@example.com", needUpdatePwd: false },
    });
    expect(reply.body.code).toBe(200);
    const user = reply.body.data;
    // Default permission is List + Download, stored with the two unused bits.
    expect(user).toMatchObject({ account: "carol", accountType: 2, permission: 2 | 4 | 1 | 8, home: "/users/carol", locked: false, role: "user" });
    expect(JSON.stringify(reply.body)).not.toMatch(/scrypt|Str0ng#Pass/);
    const { stat } = await import("node:fs/promises");
    expect((await stat(`${t.dataDir}/storage/users/carol`)).isDirectory()).toBe(true);
  });

  it("refuses duplicates and formats with the catalogue's codes", async () => {
    const dupAccount = await t.call("POST", "/api/admin/users", { token: admin, body: { account: "CAROL", password: "Str0ng#Pass" } });
    expect(dupAccount.body.code).toBe(1004);
    const dupEmail = await t.call("POST", "/api/admin/users", { token: admin, body: { account: "carol2", password: "Str0ng#Pass", email: "Carol@Example.com" } });
    expect(dupEmail.body.code).toBe(1014);
    const badAccount = await t.call("POST", "/api/admin/users", { token: admin, body: { account: "a b", password: "Str0ng#Pass" } });
    expect(badAccount.body.code).toBe(400);
    const weak = await t.call("POST", "/api/admin/users", { token: admin, body: { account: "weakling", password: "abc" } });
    expect(weak.body.code).toBe(1023);
    const list = (await t.call("GET", "/api/admin/users?search=carol", { token: admin })).body.data;
    expect(list.list.map((u: { account: string }) => u.account)).toEqual(["carol"]);
  });

  it("updates permissions with immediate effect, and resets passwords", async () => {
    const user = await t.createUser("dave");
    const patched = await t.call("PATCH", `/api/admin/users/${user.id}`, { token: admin, body: { permission: Permission.List | Permission.Upload } });
    expect(patched.body.data.permission & Permission.Upload).toBe(Permission.Upload);
    const info = await t.call("GET", "/api/user/info", { token: user.token });
    expect(info.body.data.user.permission & Permission.Download).toBe(0);

    const reset = await t.call("PUT", `/api/admin/users/${user.id}/password`, { token: admin, body: { password: "Reset#Pass9" } });
    expect(reset.body.code).toBe(200);
    expect((await t.call("GET", "/api/user/info", { token: user.token })).body.code).toBe(1009);
    expect((await t.login("dave", "Reset#Pass9")).body.code).toBe(1074);
  });

  it("keeps exactly one administrator", async () => {
    const me = (await t.call("GET", "/api/user/info", { token: admin })).body.data.user;
    expect((await t.call("DELETE", `/api/admin/users/${me.userId}`, { token: admin })).body.code).toBe(1032);
    expect((await t.call("POST", `/api/admin/users/${me.userId}/lock`, { token: admin })).body.code).toBe(4104);
    const bad = await t.call("POST", "/api/admin/users", { token: admin, body: { account: "boss", password: "Str0ng#Pass", role: "admin" } });
    expect(bad.body.code).toBe(400);
  });

  it("is closed to users and to callers without a token", async () => {
    const user = await t.createUser("erin");
    for (const [method, url] of [["GET", "/api/admin/users"], ["POST", `/api/admin/users/${user.id}/unlock`], ["DELETE", `/api/admin/users/${user.id}`], ["GET", "/api/admin/settings/security"]]) {
      expect((await t.call(method!, url!, { token: user.token })).body.code).toBe(1008);
      expect((await t.call(method!, url!)).body.code).toBe(1009);
    }
    expect((await t.call("GET", "/api/user/info", { token: user.token })).body.code).toBe(200);
  });

  it("searches with % and _ taken literally", async () => {
    await t.createUser("under_score");
    await t.createUser("underXscore");
    const found = async (search: string) =>
      (await t.call("GET", `/api/admin/users?search=${encodeURIComponent(search)}`, { token: admin })).body.data.list.map((u: { account: string }) => u.account);
    expect(await found("r_s")).toEqual(["under_score"]);
    expect(await found("UNDER")).toEqual(["under_score", "underXscore"]);
    expect(await found("%")).toEqual([]);
    expect(await found("!")).toEqual([]);
  });

  it("answers a missing user with its code", async () => {
    expect((await t.call("GET", "/api/admin/users/999999", { token: admin })).body.code).toBe(4118);
  });
});

describe("administrator API: groups", () => {
  it("creates groups, manages members and their permission, and the member sees it at once", async () => {
    const member = await t.createUser("frank");
    const group = await t.call("POST", "/api/admin/groups", { token: admin, body: { name: "Design" } });
    expect(group.body.data).toMatchObject({ name: "Design", home: "/groups/Design", members: [] });
    const id = group.body.data.id as number;
    expect((await t.call("POST", "/api/admin/groups", { token: admin, body: { name: "design" } })).body.code).toBe(1060);
    expect((await t.call("POST", "/api/admin/groups", { token: admin, body: { name: "a/b" } })).body.code).toBe(4161);

    const added = await t.call("PUT", `/api/admin/groups/${id}/members/${member.id}`, { token: admin, body: { groupPermission: Permission.List | Permission.Upload } });
    expect(added.body.data.members).toEqual([{ userId: member.id, account: "frank", groupPermission: 2 | 128 | 1 | 8 }]);
    const { writeFile } = await import("node:fs/promises");
    await writeFile(`${t.dataDir}/storage/groups/Design/brief.txt`, "x".repeat(1234));

    let groups = (await t.call("GET", "/api/user/info", { token: member.token })).body.data.user.groupList;
    expect(groups).toEqual([expect.objectContaining({ groupId: id, groupName: "Design", groupPermission: 2 | 128 | 1 | 8, userHomeSize: 1234 })]);

    await t.call("PUT", `/api/admin/groups/${id}/members/${member.id}`, { token: admin, body: { groupPermission: Permission.List } });
    groups = (await t.call("GET", "/api/user/info", { token: member.token })).body.data.user.groupList;
    expect(groups[0].groupPermission).toBe(2 | 1 | 8);

    expect((await t.call("DELETE", `/api/admin/groups/${id}`, { token: admin })).body.code).toBe(1059);
    expect((await t.call("DELETE", `/api/admin/groups/${id}/members/${member.id}`, { token: admin })).body.code).toBe(200);
    expect((await t.call("DELETE", `/api/admin/groups/${id}/members/${member.id}`, { token: admin })).body.code).toBe(4121);
    expect((await t.call("GET", "/api/user/info", { token: member.token })).body.data.user.groupList).toEqual([]);
    expect((await t.call("DELETE", `/api/admin/groups/${id}`, { token: admin })).body.code).toBe(200);
    expect((await t.call("GET", `/api/admin/groups/${id}`, { token: admin })).body.code).toBe(4119);
  });

  it("refuses homes outside the storage root", async () => {
    for (const home of ["../etc", "/a/../../etc", "relative", "/a\\b", "/x/./y"]) {
      const reply = await t.call("POST", "/api/admin/groups", { token: admin, body: { name: `g${home.length}`, home } });
      expect({ home, code: reply.body.code }).toEqual({ home, code: 400 });
    }
  });
});
