import { randomBytes } from "node:crypto";
import type { SocketEvent } from "../../contract/files";
import type { TestEngine } from "./engine";
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
