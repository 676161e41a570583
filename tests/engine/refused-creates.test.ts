import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { PERMISSION_FULL } from "../../contract/permissions";
import { SHARE_MAX_FILES } from "../../contract/share";
import { startTestEngine, type TestEngine } from "../support/engine";
import { SHARE_BASE, writeTree } from "../support/share-visitor";

/**
 * A refused create leaves nothing behind (issue 12, docs/security.md section 4): share links with
 * their items, users, groups and notifications are either written whole or not at all, and the
 * lists keep working afterwards.
 */
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

let t: TestEngine;
let admin: string;
let owner: Awaited<ReturnType<TestEngine["createUser"]>>;
let home: string;

const counts = async () => {
  const k = t.engine.services.db.kysely;
  const n = async (table: "share_links" | "share_items" | "share_tokens" | "users" | "user_groups" | "notices" | "notice_receipts") =>
    Number((await k.selectFrom(table).select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow()).n);
  return {
    share_links: await n("share_links"),
    share_items: await n("share_items"),
    share_tokens: await n("share_tokens"),
    users: await n("users"),
    user_groups: await n("user_groups"),
    notices: await n("notices"),
    notice_receipts: await n("notice_receipts"),
  };
};
const create = (body: Record<string, unknown>) => t.call("POST", "/api/share/link/create", { token: owner.token, body: { shareUrlType: 1, shareBaseUrl: SHARE_BASE, ...body } });

beforeAll(async () => {
  t = await startTestEngine({ FERRY_WEB_ORIGINS: SHARE_BASE });
  admin = await t.adminToken();
  owner = await t.createUser("refused_owner", { permission: PERMISSION_FULL });
  home = path.join(t.dataDir, "storage", "users", "refused_owner");
  await writeTree(home, { "a/same.txt": "1", "b/same.txt": "2", "c.txt": "3", "box/.keep": "" });
  const many = path.join(home, "many");
  await mkdir(many, { recursive: true });
  await Promise.all(Array.from({ length: SHARE_MAX_FILES + 1 }, (_, i) => writeFile(path.join(many, `f${i}.txt`), "")));
});
afterAll(() => t?.stop());

describe("share create", () => {
  it("refused for any reason, it writes no link, no item and no token, and the lists still work", async () => {
    expect((await create({ shareFiles: ["/c.txt"] })).body.code).toBe(200);
    const before = await counts();
    const refusals: [Record<string, unknown>, number][] = [
      [{ shareFiles: ["/a/same.txt", "/b/same.txt"] }, 4237],
      [{ shareFiles: ["/many"] }, 4196],
      [{ shareFiles: ["/c.txt", "/none.txt"] }, 1043],
      [{ shareFiles: ["/c.txt", "/a/same.txt"], fileAlias: [{ file: "/c.txt", alias: "same.txt" }] }, 4199],
      [{ shareFiles: ["/c.txt", "/a/same.txt"], fileAlias: [{ file: "/c.txt", alias: "x\u0000y" }] }, 4198],
      [{ shareFiles: ["/c.txt"], fileAlias: [{ file: "/a/same.txt", alias: "z.txt" }] }, 4102],
      [{ shareFiles: ["/c.txt"], shareEmail: "not-an-address" }, 1022],
      [{ shareFiles: ["/c.txt"], shareEmail: "friend@example.net" }, 4135],
      [{ shareFiles: ["/c.txt"], needPassword: true, shareUrlPasswd: "1234567" }, 4230],
      [{ shareFiles: ["/c.txt"], shareExpireTime: 1 }, 4232],
      [{ shareFiles: ["/c.txt"], shareBaseUrl: "https://evil.example" }, 4236],
      [{ shareUrlType: 0, shareServerPath: "/c.txt", needPassword: true, shareUrlPasswd: "abcd" }, 4234],
    ];
    for (const [body, code] of refusals) {
      expect((await create(body)).body.code, JSON.stringify(body)).toBe(code);
      expect(await counts(), JSON.stringify(body)).toEqual(before);
    }
    const list = await t.call("GET", "/api/share/link/list?pageSize=100", { token: owner.token });
    expect(list.body).toMatchObject({ code: 200, data: { total: 1 } });
    expect((await t.call("GET", "/api/admin/shares?pageSize=100", { token: admin })).body.data.total).toBe(1);
  });
});

describe("accounts and notifications", () => {
  it("a user or group whose home cannot be made is not created, and the name stays free", async () => {
    await writeFile(path.join(t.dataDir, "storage", "blocker"), "a file where a home would go");
    const before = await counts();
    const user = await t.call("POST", "/api/admin/users", { token: admin, body: { account: "blocked_user", password: "Str0ng#Pass", home: "/blocker" } });
    expect(user.body.code).not.toBe(200);
    const group = await t.call("POST", "/api/admin/groups", { token: admin, body: { name: "blocked_group", home: "/blocker" } });
    expect(group.body.code).not.toBe(200);
    expect(await counts()).toEqual(before);
    expect((await t.call("GET", "/api/admin/users?pageSize=100", { token: admin })).body.data.list.map((u: { account: string }) => u.account)).not.toContain("blocked_user");
    // The names are still free.
    expect((await t.call("POST", "/api/admin/users", { token: admin, body: { account: "blocked_user", password: "Str0ng#Pass" } })).body.code).toBe(200);
    expect((await t.call("POST", "/api/admin/groups", { token: admin, body: { name: "blocked_group" } })).body.code).toBe(200);
  });

  it("a notification to an unknown receiver writes neither the notification nor any receipt", async () => {
    const before = await counts();
    const reply = await t.call("POST", "/api/admin/notices", { token: admin, body: { title: "Hello", content: "x", receivers: [owner.id, 999_999], way: ["website"] } });
    expect(reply.body.code).toBe(4118);
    expect(await counts()).toEqual(before);
    expect((await t.call("GET", "/api/admin/notices", { token: admin })).body.code).toBe(200);
  });
});
