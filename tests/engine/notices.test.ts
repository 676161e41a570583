import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestEngine, type TestEngine } from "../support/engine";

let t: TestEngine;
beforeAll(async () => {
  t = await startTestEngine();
});
afterAll(() => t?.stop());

const send = async (title: string, receivers: number[] | "all", content = "body") => {
  const reply = await t.call("POST", "/api/admin/notices", { token: await t.adminToken(), body: { title, content, receivers, way: ["website"] } });
  expect(reply.body.code).toBe(200);
  return reply.body.data as { id: number; receivers: number };
};
const list = (token: string, query = "") => t.call("GET", `/api/notice/list${query}`, { token });

describe("notifications", () => {
  it("reach only their receivers, and each user reads and marks only their own", async () => {
    const a = await t.createUser("notice_a");
    const b = await t.createUser("notice_b");
    const markup = 'Line one\nLine two <img src=x onerror="alert(1)">';
    const notice = await send("Maintenance tonight", [a.id], markup);

    const forA = await list(a.token);
    expect(forA.body.data).toMatchObject({ total: 1, size: 10, current: 1, pages: 1, unreadCount: 1 });
    expect(forA.body.data.notic_list[0]).toMatchObject({ id: notice.id, title: "Maintenance tonight", content: markup, isShowed: false });
    expect(forA.body.data.notic_list[0].create_time).toBe(Math.floor(t.clock.now() / 1000));
    expect((await list(b.token)).body.data).toMatchObject({ total: 0, notic_list: [], unreadCount: 0 });

    // B naming A's notice changes nothing for anyone.
    const byB = await t.call("PATCH", "/api/notice/status/update", { token: b.token, body: { noticeIds: [notice.id] } });
    expect(byB.body.data).toEqual({ updated: 0, unreadCount: 0 });
    expect((await list(a.token)).body.data.unreadCount).toBe(1);

    const byA = await t.call("PATCH", "/api/notice/status/update", { token: a.token, body: { noticeIds: [notice.id] } });
    expect(byA.body.data).toEqual({ updated: 1, unreadCount: 0 });
    expect((await list(a.token)).body.data.notic_list[0].isShowed).toBe(true);
  });

  it("pages newest first", async () => {
    const c = await t.createUser("notice_c");
    for (let i = 1; i <= 12; i++) {
      t.clock.advance(1000);
      await send(`Notice ${i}`, [c.id]);
    }
    const first = (await list(c.token)).body.data;
    expect(first).toMatchObject({ total: 12, pages: 2, unreadCount: 12 });
    expect(first.notic_list.map((n: { title: string }) => n.title)).toEqual(Array.from({ length: 10 }, (_, i) => `Notice ${12 - i}`));
    const second = (await list(c.token, "?pageNum=2&pageSize=10")).body.data;
    expect(second.notic_list.map((n: { title: string }) => n.title)).toEqual(["Notice 2", "Notice 1"]);
    expect((await list(c.token, "?pageNum=1&pageSize=50")).body.data.notic_list).toHaveLength(12);
  });

  it("can go to every user at once, and the administrator sees read counts", async () => {
    const d = await t.createUser("notice_d");
    const all = await send("For everyone", "all");
    const users = (await t.call("GET", "/api/admin/users?pageSize=100", { token: await t.adminToken() })).body.data;
    expect(all.receivers).toBe(users.list.filter((u: { role: string }) => u.role === "user").length);
    await t.call("PATCH", "/api/notice/status/update", { token: d.token, body: { noticeIds: [all.id] } });
    const sent = (await t.call("GET", "/api/admin/notices", { token: await t.adminToken() })).body.data.list;
    expect(sent.find((n: { id: number }) => n.id === all.id)).toMatchObject({ receivers: all.receivers, read: 1 });
  });

  it("refuses unknown receivers and non-administrators", async () => {
    const e = await t.createUser("notice_e");
    const unknown = await t.call("POST", "/api/admin/notices", { token: await t.adminToken(), body: { title: "x", content: "y", receivers: [999999], way: ["website"] } });
    expect(unknown.body.code).toBe(4118);
    const asUser = await t.call("POST", "/api/admin/notices", { token: e.token, body: { title: "x", content: "y", receivers: [e.id], way: ["website"] } });
    expect(asUser.body.code).toBe(1008);
    expect((await list(e.token)).body.data.total).toBe(0);
  });
});

describe("deleting a notification", () => {
  it("removes it for its receivers, and a missing one has its own code", async () => {
    const f = await t.createUser("notice_f");
    const notice = await send("Short-lived", [f.id]);
    expect((await t.call("DELETE", `/api/admin/notices/${notice.id}`, { token: await t.adminToken() })).body.code).toBe(200);
    expect((await list(f.token)).body.data).toMatchObject({ total: 0, unreadCount: 0 });
    expect((await t.call("DELETE", `/api/admin/notices/${notice.id}`, { token: await t.adminToken() })).body.code).toBe(4203);
  });
});
