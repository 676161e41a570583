import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { PERMISSION_FULL } from "../../contract/permissions";
import type { TestEngine } from "../support/engine";
import { connectFiles, type FileClient } from "../support/file-client";
import { startNoticeEngine } from "../support/notice-engine";
import type { TestSmtp } from "../support/smtp";
import { blake3Hex, tusClient } from "../support/tus-client";

/**
 * The General setting "event notifications" (contract/settings.ts, eventNotifications) over real
 * HTTP: on, a followed user's (notifyAdmin) upload reaches the administrator as a notice and a mail
 * at a real SMTP server; off, nothing does — neither for transfers made while it is off nor for
 * transfers gathered before it was turned off and not yet sent.
 */
vi.setConfig({ testTimeout: 90_000, hookTimeout: 120_000 });

const SMTP_USER = "events-relay@example.com";
const SMTP_PASS = "Events#Relay-52";
const ADMIN_EMAIL = "events-boss@admin.example.org";

let t: TestEngine;
let smtp: TestSmtp;

beforeAll(async () => {
  ({ t, smtp } = await startNoticeEngine({ user: SMTP_USER, password: SMTP_PASS, adminEmail: ADMIN_EMAIL }));
});
afterAll(async () => {
  await smtp?.close();
  await t?.stop();
});

const adminNotices = async (): Promise<{ notic_list: { title: string; content: string }[]; total: number }> =>
  (await t.call("GET", "/api/notice/list?pageSize=50", { token: await t.adminToken() })).body.data;

async function setEventNotifications(on: boolean) {
  const reply = await t.call("PATCH", "/api/admin/settings/general", { token: await t.adminToken(), body: { eventNotifications: on } });
  expect(reply.body.code).toBe(200);
  expect((await t.call("GET", "/api/admin/settings/general", { token: await t.adminToken() })).body.data.eventNotifications).toBe(on);
}

/** Uploads one file with tus and commits it, as the web's transfer list does; waits until the engine recorded it. */
async function upload(socketToken: string, socket: FileClient, p: string) {
  const data = Buffer.from(`content of ${p}`);
  const created = await tusClient(t.fileUrl, socketToken).create({ groupId: "0", path: p }, data.length, data);
  expect(created.status).toBe(201);
  expect(await socket.ok("commit", { uploadId: created.id!, hash: await blake3Hex(data) })).toMatchObject({ path: p });
}

const until = async (check: () => boolean) => {
  for (let i = 0; i < 2000 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(check()).toBe(true);
};

describe("General setting: event notifications", () => {
  it("on: the administrator gets the notice and the mail of a followed user's transfer; off: none", async () => {
    const u = await t.createUser("followed_user", { permission: PERMISSION_FULL, notifyAdmin: true });
    const socket = await connectFiles(t.fileUrl, u.socketToken);
    const services = t.engine.services.transferNotices;

    // On (the default, set explicitly): one notice, one mail.
    await setEventNotifications(true);
    const before = (await adminNotices()).total;
    const mailsBefore = smtp.received.length;
    await upload(u.socketToken, socket, "/while-on.txt");
    await services.flush();
    const on = await adminNotices();
    expect(on.total).toBe(before + 1);
    expect(on.notic_list[0]!.title).toBe("传输通知：followed_user / Transfer notice: followed_user");
    expect(on.notic_list[0]!.content).toContain("/while-on.txt");
    const [mail] = (await smtp.waitFor(mailsBefore + 1)).slice(mailsBefore);
    expect(mail!.envelopeTo).toEqual([ADMIN_EMAIL]);
    expect(mail!.mail.text).toContain("/while-on.txt");

    // Off: the same user's transfers make neither a notice nor a mail.
    await setEventNotifications(false);
    await upload(u.socketToken, socket, "/while-off.txt");
    const { url } = await socket.ok("download", { groupId: 0, paths: ["/while-off.txt"] });
    const res = await fetch(t.fileUrl + url);
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    await services.flush();
    expect(services.gathered(u.id)).toBeNull();
    expect((await adminNotices()).total).toBe(before + 1);
    expect(smtp.received.length).toBe(mailsBefore + 1);

    // Gathered while on, switched off before the window ends: nothing is sent.
    await setEventNotifications(true);
    await upload(u.socketToken, socket, "/pending-when-off.txt");
    await until(() => services.gathered(u.id)?.uploadCount === 1);
    await setEventNotifications(false);
    await services.flush();
    const after = await adminNotices();
    expect(after.total).toBe(before + 1);
    expect(after.notic_list.map((n) => n.content).join("\n")).not.toContain("/pending-when-off.txt");
    expect(smtp.received.length).toBe(mailsBefore + 1);
    await socket.close();
  });
});
