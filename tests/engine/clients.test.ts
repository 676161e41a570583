import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ErrorCode } from "../../contract/errors";
import { PERMISSION_DEFAULT } from "../../contract/permissions";
import { createClientRegistry } from "../../server/fileserver/clients";
import { systemClock } from "../../server/clock";
import { connectFiles, type FileClient } from "../support/file-client";
import { startTestEngine, type TestEngine } from "../support/engine";

/** Desktop clients online: the free edition's limit and client_online (docs/file-server.md, "Desktop clients"). */

async function online(t: TestEngine, token: string): Promise<number> {
  const reply = await t.call<{ server: { client_online: number } }>("GET", "/api/service/info", { token });
  expect(reply.body.code).toBe(200);
  return reply.body.data!.server.client_online;
}

/** Whether the socket may run commands (whatever the command's own outcome). */
async function loggedIn(client: FileClient): Promise<boolean> {
  return (await client.cmd("list", { groupId: 0, path: "/" })).code !== ErrorCode.NotLoggedIn;
}

/** A socket that logs in as a desktop client; returns it with the login reply. */
async function desktop(t: TestEngine, socketToken: string, version = "3.2.1") {
  const client = await connectFiles(t.fileUrl, null);
  const login = await client.cmd("login", { token: socketToken, client: { version } });
  return { client, login };
}

describe("free edition", () => {
  let t: TestEngine;
  let user: { token: string; socketToken: string };
  const open: FileClient[] = [];
  beforeAll(async () => {
    t = await startTestEngine({ FERRY_EDITION: "free" });
    user = await t.createUser("deskfree", { permission: PERMISSION_DEFAULT });
  });
  afterAll(async () => {
    await Promise.all(open.map((c) => c.close()));
    await t?.stop();
  });

  it("admits three desktop clients, refuses a fourth with 4110, and admits a new one after one leaves", async () => {
    expect(await online(t, user.token)).toBe(0);
    const admitted = [await desktop(t, user.socketToken), await desktop(t, user.socketToken, "1.0"), await desktop(t, user.socketToken, "2.0")];
    open.push(...admitted.map((d) => d.client));
    expect(admitted.map((d) => d.login.code)).toEqual([200, 200, 200]);
    for (const { client } of admitted) expect(await loggedIn(client)).toBe(true);
    expect(await online(t, user.token)).toBe(3);

    const fourth = await desktop(t, user.socketToken);
    open.push(fourth.client);
    expect(fourth.login.code).toBe(ErrorCode.FreeVersionClientLimit);
    expect(fourth.login.message).toBe("The free edition allows at most 3 desktop clients online at once");
    // Refused means not logged in: the socket cannot run commands.
    expect(await loggedIn(fourth.client)).toBe(false);
    expect(await online(t, user.token)).toBe(3);

    await admitted[0]!.client.close();
    await vi.waitFor(async () => expect(await online(t, user.token)).toBe(2));
    const again = await fourth.client.cmd("login", { token: user.socketToken, client: { version: "3.2.1" } });
    expect(again.code).toBe(200);
    expect(await loggedIn(fourth.client)).toBe(true);
    expect(await online(t, user.token)).toBe(3);
  });

  it("does not count browsers, and a client logging in twice on one socket counts once", async () => {
    const browsers = await Promise.all([1, 2, 3].map(() => connectFiles(t.fileUrl, user.socketToken)));
    open.push(...browsers);
    for (const b of browsers) expect(await loggedIn(b)).toBe(true);
    expect(await online(t, user.token)).toBe(3);
    // The three places are taken by the first test's clients; a repeated login of one of them is not a fourth.
    const second = open[1]!;
    expect((await second.cmd("login", { token: user.socketToken, client: { version: "1.0" } })).code).toBe(200);
    expect(await online(t, user.token)).toBe(3);
  });

  it("counts the clients of other engine instances until their heartbeat lapses", async () => {
    await Promise.all(open.splice(0).map((c) => c.close()));
    await vi.waitFor(async () => expect(await online(t, user.token)).toBe(0));
    const { db } = t.engine.services;
    const userId = (await db.kysely.selectFrom("users").select("id").where("account", "=", "deskfree").executeTakeFirstOrThrow()).id;
    const now = t.clock.now();
    await db.kysely.insertInto("client_sockets").values({ id: "elsewhere", instance: "other-instance", user_id: userId, version: "3.0", created_at: now, expires_at: now + 1000 }).execute();
    expect(await online(t, user.token)).toBe(1);

    const mine = [await desktop(t, user.socketToken), await desktop(t, user.socketToken)];
    const refused = await desktop(t, user.socketToken);
    open.push(...mine.map((d) => d.client), refused.client);
    expect(mine.map((d) => d.login.code)).toEqual([200, 200]);
    expect(refused.login.code).toBe(ErrorCode.FreeVersionClientLimit);
    expect(await online(t, user.token)).toBe(3);

    // The other instance stopped beating: its client no longer holds a place.
    t.clock.advance(1001);
    expect(await online(t, user.token)).toBe(2);
    expect((await refused.client.cmd("login", { token: user.socketToken, client: { version: "3.0" } })).code).toBe(200);
    expect(await online(t, user.token)).toBe(3);
  });

  it("refuses a malformed client identity and an invalid token without counting them", async () => {
    const client = await connectFiles(t.fileUrl, null);
    open.push(client);
    expect((await client.cmd("login", { token: user.socketToken, client: { version: "" } })).code).toBe(ErrorCode.ParameterError);
    expect((await client.cmd("login", { token: user.socketToken, client: {} as { version: string } })).code).toBe(ErrorCode.BadRequired);
    expect((await client.cmd("login", { token: "x".repeat(128), client: { version: "3.0" } })).code).toBe(ErrorCode.InvalidToken);
    expect(await online(t, user.token)).toBe(3);
  });
});

describe("other editions", () => {
  let t: TestEngine;
  const open: FileClient[] = [];
  beforeAll(async () => {
    t = await startTestEngine({ FERRY_EDITION: "pro" });
  });
  afterAll(async () => {
    await Promise.all(open.map((c) => c.close()));
    await t?.stop();
  });

  it("an instance that closes while its clients disconnect leaves none of its rows, without deadlocks", async () => {
    const user = await t.createUser("deskclose", { permission: PERMISSION_DEFAULT });
    const { db } = t.engine.services;
    const log = { warn: vi.fn() } as unknown as Parameters<typeof createClientRegistry>[0]["log"];
    const rows = async () => Number((await db.kysely.selectFrom("client_sockets").select((eb) => eb.fn.countAll<number | string>().as("n")).where("user_id", "=", user.id).executeTakeFirstOrThrow()).n);
    // Many rounds: on MySQL/MariaDB a delete by instance beside deletes by id deadlocked now and then.
    for (let round = 0; round < 25; round++) {
      const registry = createClientRegistry({ db, clock: systemClock, clientLimit: async () => null, log });
      const ids = await Promise.all(Array.from({ length: 6 }, () => registry.admit(user.id, "3.2.1")));
      expect(await rows()).toBe(6);
      await Promise.all([...ids.map((id) => registry.release(id)), registry.close(), ...ids.map((id) => registry.release(id))]);
      expect(await rows()).toBe(0);
    }
  });

  it("admit any number of desktop clients", async () => {
    const user = await t.createUser("deskpro", { permission: PERMISSION_DEFAULT });
    for (let i = 0; i < 4; i++) {
      const { client, login } = await desktop(t, user.socketToken);
      open.push(client);
      expect(login.code).toBe(200);
    }
    expect(await online(t, user.token)).toBe(4);
  });
});
