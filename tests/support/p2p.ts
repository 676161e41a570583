import { randomBytes } from "node:crypto";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import type { SocketEvent } from "../../contract/files";
import { startTestEngine, type TestEngine } from "./engine";
import { connectFiles, type FileClient } from "./file-client";

/** A browser of an engine test for point to point: a signed-in socket registered as a device, and the events it heard. */
export interface P2pBrowser {
  files: FileClient;
  deviceId: string;
  deviceKey: string;
  events: SocketEvent[];
  /** The events of one kind heard so far. */
  heard<E extends SocketEvent["event"]>(event: E): Extract<SocketEvent, { event: E }>["data"][];
}

export const newDeviceKey = () => randomBytes(32).toString("base64url");

/** Opens a socket as `socketToken`, registers `deviceKey` (a new one when left out) and records every event. */
export async function p2pBrowser(t: TestEngine, socketToken: string, deviceKey = newDeviceKey()): Promise<P2pBrowser> {
  const files = await connectFiles(t.fileUrl, socketToken);
  const events: SocketEvent[] = [];
  files.socket.on("message", (data) => {
    const message = JSON.parse(String(data)) as Record<string, unknown>;
    if (!("id" in message)) events.push(message as SocketEvent);
  });
  const { deviceId } = await files.ok("p2pRegister", { deviceKey });
  return {
    files,
    deviceId,
    deviceKey,
    events,
    heard: (event) => events.filter((e) => e.event === event).map((e) => e.data) as never,
  };
}

/** Waits (up to 2 s) for `check` to hold. */
export async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
}

/** Lets events already on their way arrive (for checks that something was *not* heard). */
export const settle = () => new Promise((r) => setTimeout(r, 150));

/** GET /api/transmission/ptp/status as `token` (`data` is null unless the code is 200). */
export async function deviceStatus(t: TestEngine, token: string, id: string, form: "data" | "id" = "data") {
  const q = form === "data" ? `data=${encodeURIComponent(JSON.stringify({ id }))}` : `id=${encodeURIComponent(id)}`;
  const reply = await t.call<{ result: number; online: boolean; account: string }>("GET", `/api/transmission/ptp/status?${q}`, { token });
  return reply as typeof reply & { body: { data: NonNullable<(typeof reply)["body"]["data"]> } };
}

/** PUT /api/admin/p2p/settings. */
export async function setP2p(t: TestEngine, body: Record<string, unknown>) {
  const reply = await t.call("PUT", "/api/admin/p2p/settings", { token: await t.adminToken(), body });
  if (reply.body.code !== 200) throw new Error(`p2p settings: ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

/** A file of an offer: a path, its size, 0 a file or 1 a folder. */
export type P2pFile = { path: string; size: number; kind: 0 | 1 };

/** Three files in two top-level names (4010 bytes). */
export const P2P_FILES: P2pFile[] = [
  { path: "photos/one.jpg", size: 1000, kind: 0 },
  { path: "photos/two.jpg", size: 3000, kind: 0 },
  { path: "notes.txt", size: 10, kind: 0 },
];

/** A SHA-256 hash (hex) made of one character. */
export const HASH = (c: string) => c.repeat(64);

/** A page of an administrator's list. */
export type Page<T> = { list: T[]; total: number; size: number; current: number };

/**
 * A P2P test file's engine and helpers: the engine starts before the file's tests and stops after
 * them, and the browsers a test opens are closed after it. `user()` makes accounts `<prefix>_1`,
 * `<prefix>_2`… (with `userOptions`, e.g. a permission). `env`: the engine's configuration on top of the test one.
 */
export function p2pSuite(prefix: string, userOptions?: Record<string, unknown>, env?: Record<string, string>) {
  const open: FileClient[] = [];
  let n = 0;
  const suite = {
    t: undefined as unknown as TestEngine,
    /** A browser (a new device key when `key` is left out), closed after the test. */
    async browser(socketToken: string, key?: string): Promise<P2pBrowser> {
      const b = await p2pBrowser(suite.t, socketToken, key);
      open.push(b.files);
      return b;
    },
    /** Closes `client` (a socket the test opened itself) after the test. */
    closeAfter(client: FileClient) {
      open.push(client);
    },
    /** A new account; `options` (e.g. another permission) over the suite's `userOptions`. */
    user: (options?: Record<string, unknown>) => suite.t.createUser(`${prefix}_${++n}`, { ...userOptions, ...options }),
    /** GET `path` as the administrator: its data, the code checked. */
    async admin<T>(path: string): Promise<T> {
      const reply = await suite.t.call<T>("GET", path, { token: await suite.t.adminToken() });
      expect(reply.body.code).toBe(200);
      return reply.body.data!;
    },
    /** Two new users, a sender and a receiver whose page is open, and an offer of `files` from one to the other (not answered). */
    async offered(files: P2pFile[] = P2P_FILES) {
      const [a, b] = [await suite.user(), await suite.user()];
      const sender = await suite.browser(a.socketToken);
      const receiver = await suite.browser(b.socketToken);
      await receiver.files.ok("p2pReceive", { deviceId: receiver.deviceId, allow: true });
      const { transferId, status } = await sender.files.ok("p2pOffer", { to: receiver.deviceId, fromDevice: sender.deviceId, files });
      expect(status).toBe("offered");
      return { a, b, sender, receiver, transferId };
    },
    /** An offer, accepted into `target`. */
    async accepted(files: P2pFile[] = P2P_FILES, target: "local" | "ferry" = "local") {
      const o = await suite.offered(files);
      expect(await o.receiver.files.ok("p2pAnswer", { transferId: o.transferId, accept: true, target })).toEqual({ status: "accepted" });
      return o;
    },
  };
  beforeAll(async () => {
    suite.t = await startTestEngine(env);
  });
  afterEach(async () => {
    for (const s of open.splice(0)) await s.close();
  });
  afterAll(() => suite.t?.stop());
  return suite;
}
