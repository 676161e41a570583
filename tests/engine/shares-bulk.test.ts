import { mkdir } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { PERMISSION_FULL } from "../../contract/permissions";
import { startTestEngine, type TestEngine } from "../support/engine";

/** Bulk cancel and delete act on exactly the links sent (issue 13, item 3), and an expired link is not cancelled. */
vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

let t: TestEngine;
const BASE = "https://files.example.com";
let token: string;
let password: string;

beforeAll(async () => {
  t = await startTestEngine({ FERRY_WEB_ORIGINS: BASE });
  const user = await t.createUser("bulk_owner", { permission: PERMISSION_FULL });
  for (const name of ["a", "b", "c", "d", "old"]) await mkdir(path.join(t.dataDir, "storage", "users", "bulk_owner", name), { recursive: true });
  token = user.token;
  password = user.password;
});
afterAll(() => t?.stop());

async function link(name: string, expireIn = 0) {
  const body = { shareBaseUrl: BASE, shareUrlType: 1, shareFiles: [`/${name}`], shareExpireTime: expireIn ? Math.floor(t.clock.now() / 1000) + expireIn : 0 };
  const reply = await t.call("POST", "/api/share/link/create", { token, body });
  expect(reply.body.code, JSON.stringify(reply.body)).toBe(200);
  return (reply.body.data as { shareId: string }).shareId;
}
async function statuses() {
  const reply = await t.call("GET", "/api/share/link/list?shareUrlType=1&pageSize=100", { token });
  return Object.fromEntries((reply.body.data as { sharelinkinfo: { filename: string[]; shareStatus: number }[] }).sharelinkinfo.map((l) => [l.filename[0], l.shareStatus]));
}

describe("bulk cancel and delete", () => {
  it("change exactly the links sent, cancel skips an expired link, and affected counts what changed", async () => {
    const ids = { a: await link("a"), b: await link("b"), c: await link("c"), d: await link("d"), old: await link("old", 60) };
    t.clock.advance(61_000);
    token = await t.tokenFor("bulk_owner", password);
    expect(await statuses()).toEqual({ a: 1, b: 1, c: 1, d: 1, old: 2 });

    const cancel = await t.call("PATCH", "/api/share/link/cancel", { token, body: { shareUrlList: [ids.a, ids.b, ids.old] } });
    expect(cancel.body.data).toEqual({ affected: 2 });
    expect(await statuses()).toEqual({ a: 3, b: 3, c: 1, d: 1, old: 2 });

    const remove = await t.call("POST", "/api/share/link/delete", { token, body: { shareUrlList: [ids.c, ids.d] } });
    expect(remove.body.data).toEqual({ affected: 2 });
    expect(await statuses()).toEqual({ a: 3, b: 3, old: 2 });
  });
});
