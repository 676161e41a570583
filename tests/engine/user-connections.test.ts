import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { AdminUser } from "../../contract/admin";
import { loadForwardSecret, signClientAddress } from "../../contract/forwarding";
import { connectFiles, type FileClient } from "../support/file-client";
import { startTestEngine, type TestEngine } from "../support/engine";

/**
 * The admin user's online state with its connections and their addresses (docs/admin-api.md,
 * "Users"): signed-in sessions with a live access token, a desktop client's socket counted instead
 * of the session it logged in with, kept in the database so every engine instance sees the same.
 */

let t: TestEngine;
let key: string;
const open: FileClient[] = [];
beforeAll(async () => {
  t = await startTestEngine({ FERRY_EDITION: "pro" });
  key = loadForwardSecret(t.dataDir, null);
});
afterAll(async () => {
  await Promise.all(open.map((c) => c.close()));
  await t?.stop();
});

/** Headers the web sends for a browser at `address` (signed with the forward secret). */
const from = (address: string) => ({ "x-ferry-client-address": address, "x-ferry-client-signature": signClientAddress(key, address) });

async function seen(id: number) {
  const one = await t.call<AdminUser>("GET", `/api/admin/users/${id}`, { token: await t.adminToken() });
  expect(one.body.code).toBe(200);
  const listed = await t.call<{ list: AdminUser[] }>("GET", `/api/admin/users?search=${one.body.data!.account}`, { token: await t.adminToken() });
  const row = listed.body.data!.list.find((u) => u.id === id)!;
  const state = ({ online, connections, addresses }: AdminUser) => ({ online, connections, addresses });
  // The list and the single user say the same.
  expect(state(row)).toEqual(state(one.body.data!));
  return state(one.body.data!);
}

async function signIn(account: string, password: string, address: string) {
  const reply = await t.login(account, password, from(address));
  expect(reply.body.code).toBe(200);
  return reply.body.data as { token: string; websocket_token: string };
}

async function desktop(socketToken: string, address: string) {
  const client = await connectFiles(t.fileUrl, null, from(address));
  open.push(client);
  expect((await client.cmd("login", { token: socketToken, client: { version: "3.2.1" } })).code).toBe(200);
  return client;
}

describe("a user's connections", () => {
  it("counts live sessions and desktop sockets with their addresses, a client's session once", async () => {
    // createUser signs the user in once, from 127.0.0.1.
    const user = await t.createUser("conn_user");
    expect(await seen(user.id)).toEqual({ online: true, connections: 1, addresses: ["127.0.0.1"] });

    const browser = await signIn(user.account, user.password, "10.1.2.3");
    expect(await seen(user.id)).toEqual({ online: true, connections: 2, addresses: ["10.1.2.3", "127.0.0.1"] });

    // A desktop client signs in from one address; its socket comes from another: the socket counts.
    const client = await signIn(user.account, user.password, "10.9.9.9");
    expect((await seen(user.id)).connections).toBe(3);
    const first = await desktop(client.websocket_token, "10.7.7.7");
    expect(await seen(user.id)).toEqual({ online: true, connections: 3, addresses: ["10.1.2.3", "10.7.7.7", "127.0.0.1"] });
    // A second socket of the same session is one connection more.
    const second = await desktop(client.websocket_token, "10.7.7.8");
    expect(await seen(user.id)).toEqual({ online: true, connections: 4, addresses: ["10.1.2.3", "10.7.7.7", "10.7.7.8", "127.0.0.1"] });

    // Sockets gone: the client's session (its token still live) is counted again, from where it signed in.
    await first.close();
    await second.close();
    await vi.waitFor(async () => expect(await seen(user.id)).toEqual({ online: true, connections: 3, addresses: ["10.1.2.3", "10.9.9.9", "127.0.0.1"] }));

    // A session signed out is no connection.
    expect((await t.call("POST", "/api/user/logout", { token: browser.token })).body.code).toBe(200);
    expect(await seen(user.id)).toEqual({ online: true, connections: 2, addresses: ["10.9.9.9", "127.0.0.1"] });
  });

  it("counts another engine instance's desktop client through the database", async () => {
    const user = await t.createUser("conn_other");
    const { db } = t.engine.services;
    const now = t.clock.now();
    await db.kysely
      .insertInto("client_sockets")
      .values({ id: "conn-elsewhere", instance: "other-instance", user_id: user.id, version: "3.0", created_at: now, expires_at: now + 1000, session_id: "", address: "192.0.2.5" })
      .execute();
    expect(await seen(user.id)).toEqual({ online: true, connections: 2, addresses: ["127.0.0.1", "192.0.2.5"] });
    // That instance stopped beating: its client lapses.
    t.clock.advance(1001);
    expect(await seen(user.id)).toEqual({ online: true, connections: 1, addresses: ["127.0.0.1"] });
  });

  it("has none once the access tokens expired, and a user never signed in has none", async () => {
    const user = await t.createUser("conn_late");
    const never = await t.call<AdminUser>("POST", "/api/admin/users", { token: await t.adminToken(), body: { account: "conn_never", password: "Str0ng#Pass", needUpdatePwd: false } });
    expect(await seen(never.body.data!.id)).toEqual({ online: false, connections: 0, addresses: [] });
    t.clock.advance(3600 * 1000 + 1);
    expect(await seen(user.id)).toEqual({ online: false, connections: 0, addresses: [] });
  });
});
