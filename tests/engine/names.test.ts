import { mkdir, readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { PERMISSION_FULL } from "../../contract/permissions";
import { startTestEngine, type TestEngine } from "../support/engine";
import { connectFiles, type FileClient } from "../support/file-client";
import { SHARE_BASE } from "../support/share-visitor";

/**
 * User-chosen names through the REST API and the socket (issue 12, docs/security.md section 5): one
 * rule (contract/validation.ts nameProblem) refuses control characters, look-alikes of . and / and
 * the spec's forbidden characters in file and folder names, share aliases, group names, full names
 * and notification titles; a refused name changes nothing.
 */
vi.setConfig({ testTimeout: 90_000, hookTimeout: 120_000 });

const BAD = ["a\u0000b", "tab\there", "cr\rhere", "lf\nhere", "del\u007fx", "c1\u0085x", "bidi\u202eexe.txt", "\uff0e\uff0e", "\uff0e\uff0e\uff0fetc", "a\u2215b", "a\u2044b", "one\u2024dot", "a\uff3cb", "x|y", "a:b", 'q"q'];
const GOOD = ["file..name", "报告：2026", "a。b"];

let t: TestEngine;
let admin: string;
let user: Awaited<ReturnType<TestEngine["createUser"]>>;
let files: FileClient;
let home: string;

beforeAll(async () => {
  t = await startTestEngine({ FERRY_WEB_ORIGINS: SHARE_BASE });
  admin = await t.adminToken();
  user = await t.createUser("names_user", { permission: PERMISSION_FULL });
  home = path.join(t.dataDir, "storage", "users", "names_user");
  await mkdir(path.join(home, "m"), { recursive: true });
  await writeFile(path.join(home, "m", "one.txt"), "1");
  await writeFile(path.join(home, "m", "two.txt"), "2");
  files = await connectFiles(t.fileUrl, user.socketToken);
});
afterAll(async () => {
  await files?.close();
  await t?.stop();
});

describe("file and folder names over the socket", () => {
  it("mkdir and rename refuse every bad name with 4161 and change nothing; good names pass", async () => {
    const before = (await readdir(path.join(home, "m"))).sort();
    for (const name of BAD) {
      expect((await files.cmd("mkdir", { groupId: 0, path: "/m", name })).code, JSON.stringify(name)).toBe(4161);
      expect((await files.cmd("rename", { groupId: 0, path: "/m/one.txt", newName: name })).code, JSON.stringify(name)).toBe(4161);
    }
    expect((await readdir(path.join(home, "m"))).sort()).toEqual(before);
    for (const name of GOOD) {
      expect((await files.cmd("mkdir", { groupId: 0, path: "/m", name })).code, name).toBe(200);
    }
    expect((await files.cmd("rename", { groupId: 0, path: "/m/one.txt", newName: "uno：1.txt" })).code).toBe(200);
  });
});

describe("names over the REST API", () => {
  it("group names: create and rename refuse bad names with 4161; nothing is created", async () => {
    const count = async () => (await t.call("GET", "/api/admin/groups?pageSize=100", { token: admin })).body.data.total as number;
    const before = await count();
    for (const name of BAD) {
      const reply = await t.call("POST", "/api/admin/groups", { token: admin, body: { name } });
      expect(reply.body.code, JSON.stringify(name)).toBe(4161);
    }
    expect(await count()).toBe(before);
    const made = await t.call("POST", "/api/admin/groups", { token: admin, body: { name: "报告：2026" } });
    expect(made.body.code).toBe(200);
    for (const name of BAD) {
      const reply = await t.call("PATCH", `/api/admin/groups/${made.body.data.id}`, { token: admin, body: { name } });
      expect(reply.body.code, JSON.stringify(name)).toBe(4161);
    }
    expect((await t.call("GET", `/api/admin/groups/${made.body.data.id}`, { token: admin })).body.data.name).toBe("报告：2026");
  });

  it("full names and notification titles refuse bad names with the parameter error and the name rule's message", async () => {
    for (const name of BAD.filter((n) => n.length <= 32)) {
      const reply = await t.call("PATCH", `/api/admin/users/${user.id}`, { token: admin, body: { fullname: name } });
      expect(reply.body.code, JSON.stringify(name)).toBe(400);
      expect(JSON.stringify(reply.body.data)).toMatch(/must not contain/);
      const created = await t.call("POST", "/api/admin/users", { token: admin, body: { account: "named_x", password: "Str0ng#Pass", fullname: name } });
      expect(created.body.code, JSON.stringify(name)).toBe(400);
    }
    expect((await t.call("PATCH", `/api/admin/users/${user.id}`, { token: admin, body: { fullname: "王小明" } })).body.code).toBe(200);
    const before = (await t.call("GET", "/api/admin/notices", { token: admin })).body.data.total as number;
    for (const title of BAD) {
      const reply = await t.call("POST", "/api/admin/notices", { token: admin, body: { title, content: "body", receivers: [user.id], way: ["website"] } });
      expect(reply.body.code, JSON.stringify(title)).toBe(400);
    }
    expect((await t.call("GET", "/api/admin/notices", { token: admin })).body.data.total).toBe(before);
    expect((await t.call("POST", "/api/admin/notices", { token: admin, body: { title: "维护通知 2026。", content: "body", receivers: [user.id], way: ["website"] } })).body.code).toBe(200);
  });

  it("share aliases refuse bad names with 4198 and create nothing", async () => {
    const create = (alias: string) =>
      t.call("POST", "/api/share/link/create", { token: user.token, body: { shareUrlType: 1, shareBaseUrl: SHARE_BASE, shareFiles: ["/m/two.txt"], fileAlias: [{ file: "/m/two.txt", alias }] } });
    for (const alias of BAD) expect((await create(alias)).body.code, JSON.stringify(alias)).toBe(4198);
    expect((await t.call("GET", "/api/share/link/list", { token: user.token })).body.data.total).toBe(0);
    expect((await create("报告：final.txt")).body.code).toBe(200);
  });
});
