import type WebSocket from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SocketEvent } from "../../contract/files";
import { startTestEngine, type TestEngine } from "../support/engine";
import { connectFiles } from "../support/file-client";

let t: TestEngine;
beforeAll(async () => {
  t = await startTestEngine();
});
afterAll(() => t?.stop());

/** Every event (a message without `id`) the socket receives from now on. */
function events(socket: WebSocket): SocketEvent[] {
  const seen: SocketEvent[] = [];
  socket.on("message", (data) => {
    const message = JSON.parse(String(data)) as Record<string, unknown>;
    if (!("id" in message)) seen.push(message as SocketEvent);
  });
  return seen;
}

const until = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
};

const send = async (title: string, receivers: number[] | "all") => {
  const reply = await t.call("POST", "/api/admin/notices", { token: await t.adminToken(), body: { title, content: "body", receivers, way: ["website"] } });
  expect(reply.body.code).toBe(200);
  return reply.body.data as { id: number };
};

describe("notice events on the file server's socket", () => {
  it("a new notice reaches every open socket of its receivers with the unread count, and no one else's", async () => {
    const a = await t.createUser("event_a");
    const b = await t.createUser("event_b");
    const a1 = await connectFiles(t.fileUrl, a.socketToken);
    const a2 = await connectFiles(t.fileUrl, a.socketToken);
    const bSocket = await connectFiles(t.fileUrl, b.socketToken);
    const loggedOut = await connectFiles(t.fileUrl, null);
    const [seenA1, seenA2, seenB, seenOut] = [events(a1.socket), events(a2.socket), events(bSocket.socket), events(loggedOut.socket)];

    await send("For A", [a.id]);
    await until(() => seenA1.length > 0 && seenA2.length > 0);
    expect(seenA1).toEqual([{ event: "notice", data: { unreadCount: 1 } }]);
    expect(seenA2).toEqual([{ event: "notice", data: { unreadCount: 1 } }]);

    await send("For B", [b.id]);
    await until(() => seenB.length > 0);
    expect(seenB).toEqual([{ event: "notice", data: { unreadCount: 1 } }]);
    // A heard nothing of B's notice, and a socket without a login hears nothing at all.
    await a1.ok("list", { groupId: 0, path: "/" });
    expect(seenA1).toHaveLength(1);
    expect(seenOut).toEqual([]);

    // Marking read is a change too: the user's other pages follow.
    const read = await t.call("PATCH", "/api/notice/status/read-all", { token: a.token });
    expect(read.body.data).toEqual({ updated: 1, unreadCount: 0 });
    await until(() => seenA2.length > 1);
    expect(seenA2[1]).toEqual({ event: "notice", data: { unreadCount: 0 } });
    await Promise.all([a1.close(), a2.close(), bSocket.close(), loggedOut.close()]);
  });

  it("a socket whose sign-in ended gets no event and is closed", async () => {
    const c = await t.createUser("event_c");
    const socket = await connectFiles(t.fileUrl, c.socketToken);
    const seen = events(socket.socket);
    const closed = new Promise<number>((resolve) => socket.socket.once("close", (code) => resolve(code)));
    expect((await t.call("POST", "/api/user/logout", { token: c.token })).body.code).toBe(200);
    await send("After logout", [c.id]);
    expect(await closed).toBe(4001);
    expect(seen).toEqual([]);
  });
});

describe("mark all as read", () => {
  it("marks every unread notice of the caller, and only the caller's", async () => {
    const d = await t.createUser("readall_d");
    const e = await t.createUser("readall_e");
    await send("One", [d.id, e.id]);
    await send("Two", [d.id]);
    await send("Three", [d.id, e.id]);

    const reply = await t.call("PATCH", "/api/notice/status/read-all", { token: d.token });
    expect(reply.body).toMatchObject({ code: 200, data: { updated: 3, unreadCount: 0 } });
    const listD = (await t.call("GET", "/api/notice/list", { token: d.token })).body.data;
    expect(listD.notic_list.every((n: { isShowed: boolean }) => n.isShowed)).toBe(true);
    const listE = (await t.call("GET", "/api/notice/list", { token: e.token })).body.data;
    expect(listE).toMatchObject({ total: 2, unreadCount: 2 });
    expect(listE.notic_list.every((n: { isShowed: boolean }) => !n.isShowed)).toBe(true);

    expect((await t.call("PATCH", "/api/notice/status/read-all", { token: d.token })).body.data).toEqual({ updated: 0, unreadCount: 0 });
    expect((await t.call("PATCH", "/api/notice/status/read-all", {})).body.code).toBe(1009);
  });
});
