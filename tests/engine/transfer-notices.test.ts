import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { PERMISSION_FULL } from "../../contract/permissions";
import { startTestEngine, type TestEngine } from "../support/engine";
import { connectFiles, type FileClient } from "../support/file-client";
import { startNoticeEngine } from "../support/notice-engine";
import type { TestSmtp } from "../support/smtp";
import { blake3Hex, tusClient } from "../support/tus-client";

/**
 * "Notify the administrator of transfers" (users.notifyAdmin; docs/mail.md, "Transfer notices to
 * the administrator"): a notify user's committed uploads and finished downloads become one notice
 * in the administrator's inbox (GET /api/notice/list, as users read theirs) and one mail through
 * the server's account to the administrator's address, at a real SMTP server (smtp-server).
 */
vi.setConfig({ testTimeout: 90_000, hookTimeout: 120_000 });

const SMTP_USER = "server-relay@example.com";
const SMTP_PASS = "Server#Relay-44";
const ADMIN_EMAIL = "boss@admin.example.org";
type User = Awaited<ReturnType<TestEngine["createUser"]>>;
type Notice = { id: number; title: string; content: string; isShowed: boolean };

let t: TestEngine;
let smtp: TestSmtp;

beforeAll(async () => {
  ({ t, smtp } = await startNoticeEngine({ user: SMTP_USER, password: SMTP_PASS, adminEmail: ADMIN_EMAIL }));
});
afterAll(async () => {
  await smtp?.close();
  await t?.stop();
});

const adminNotices = async (): Promise<{ notic_list: Notice[]; total: number; unreadCount: number }> =>
  (await t.call("GET", "/api/notice/list?pageSize=50", { token: await t.adminToken() })).body.data;

const until = async (check: () => boolean) => {
  for (let i = 0; i < 2000 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(check()).toBe(true);
};

/** Uploads `files` (path → content) with tus and commits each, as the web's transfer list does. */
async function upload(u: User, socket: FileClient, files: Record<string, string>) {
  const tus = tusClient(t.fileUrl, u.socketToken);
  for (const [p, content] of Object.entries(files)) {
    const data = Buffer.from(content);
    const created = await tus.create({ groupId: "0", path: p }, data.length, data);
    expect(created.status).toBe(201);
    expect(await socket.ok("commit", { uploadId: created.id!, hash: await blake3Hex(data) })).toMatchObject({ path: p });
  }
}

/** Downloads `paths` as the web does: a signed URL from the socket, then every byte of it. */
async function download(socket: FileClient, paths: string[]) {
  const { url } = await socket.ok("download", { groupId: 0, paths });
  const res = await fetch(t.fileUrl + url);
  expect(res.status).toBe(200);
  await res.arrayBuffer();
}

async function userWithFiles(account: string, notifyAdmin: boolean) {
  const u = await t.createUser(account, { permission: PERMISSION_FULL, notifyAdmin, fullname: notifyAdmin ? "Tom & Jerry" : "" });
  const home = path.join(t.dataDir, "storage", "users", account);
  await mkdir(path.join(home, "folder"), { recursive: true });
  await writeFile(path.join(home, "folder", "inside.txt"), "inside");
  await writeFile(path.join(home, "Tom & Jerry's.txt"), "names");
  return { u, socket: await connectFiles(t.fileUrl, u.socketToken) };
}

describe("transfer notices to the administrator", () => {
  it("gathers a notify user's uploads and downloads into one notice and one mail; a user without notifyAdmin makes none", async () => {
    const quiet = await userWithFiles("quiet_user", false);
    const loud = await userWithFiles("loud_user", true);
    const noticesBefore = (await adminNotices()).total;
    const mailsBefore = smtp.received.length;

    // The quiet user's transfers come first: none of them reaches the administrator.
    await upload(quiet.u, quiet.socket, { "/quiet-upload.txt": "q" });
    await download(quiet.socket, ["/Tom & Jerry's.txt"]);
    await download(quiet.socket, ["/folder"]);

    // 25 uploads, a file download, a zip of a folder and a zip of two items: one notice.
    const files = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`/batch/file-${String(i).padStart(2, "0")}.txt`, `content ${i}`]));
    await upload(loud.u, loud.socket, files);
    await download(loud.socket, ["/Tom & Jerry's.txt"]);
    await download(loud.socket, ["/folder"]);
    await download(loud.socket, ["/folder", "/Tom & Jerry's.txt"]);
    const services = t.engine.services.transferNotices;
    await until(() => services.gathered(loud.u.id)?.uploadCount === 25 && services.gathered(loud.u.id)?.downloadCount === 3);
    expect(services.gathered(quiet.u.id)).toBeNull();
    await services.flush();

    const after = await adminNotices();
    expect(after.total).toBe(noticesBefore + 1);
    const notice = after.notic_list[0]!;
    expect(notice.isShowed).toBe(false);
    expect(notice.title).toBe("传输通知：loud_user / Transfer notice: loud_user");
    expect(notice.content).toContain("Transfers of user loud_user (Tom & Jerry):");
    expect(notice.content).toContain("用户 loud_user（Tom & Jerry） 的传输：");
    expect(notice.content).toContain("Uploaded 25 files:");
    expect(notice.content).toContain("上传了 25 个文件：");
    expect(notice.content).toContain("/batch/file-00.txt");
    expect(notice.content).toContain("/batch/file-19.txt");
    // 20 names are listed, the rest counted.
    expect(notice.content).not.toContain("/batch/file-20.txt");
    expect(notice.content).toContain("… and 5 more");
    expect(notice.content).toContain("Downloaded 3 times:");
    expect(notice.content).toContain("/Tom & Jerry's.txt");
    expect(notice.content).toContain("/folder (zip)");
    expect(notice.content).toContain("/folder, /Tom & Jerry's.txt (zip)");
    expect(notice.content).not.toContain("quiet");
    expect(after.unreadCount).toBeGreaterThan(0);

    // The same in one mail to the administrator, through the server's account, names escaped in HTML.
    const [mail] = (await smtp.waitFor(mailsBefore + 1)).slice(mailsBefore);
    expect(mail!.envelopeTo).toEqual([ADMIN_EMAIL]);
    expect(mail!.user).toBe(SMTP_USER);
    expect(mail!.mail.subject).toBe("传输通知：loud_user / Transfer notice: loud_user");
    expect(mail!.mail.text).toContain("Uploaded 25 files:");
    expect(mail!.mail.text).toContain("上传了 25 个文件：");
    const html = String(mail!.mail.html);
    expect(html).toContain("Tom &amp; Jerry&#39;s.txt");
    expect(html).not.toContain("Tom & Jerry");
    expect(smtp.received.length).toBe(mailsBefore + 1);

    // The notice is the administrator's alone: not in the users' inboxes, not in the console's sent list.
    for (const u of [loud.u, quiet.u]) expect((await t.call("GET", "/api/notice/list", { token: u.token })).body.data.total).toBe(0);
    const sent = (await t.call("GET", "/api/admin/notices", { token: await t.adminToken() })).body.data;
    expect(sent.list.map((n: { title: string }) => n.title)).not.toContain(notice.title);
    await Promise.all([quiet.socket.close(), loud.socket.close()]);
  });

  it("turning notifyAdmin off stops the notices; a download that is cut short is not one", async () => {
    const { u, socket } = await userWithFiles("switch_user", true);
    await writeFile(path.join(t.dataDir, "storage", "users", "switch_user", "big.bin"), Buffer.alloc(32 * 1024 * 1024, 1));
    // A client that reads only the first bytes and goes away.
    const { url } = await socket.ok("download", { groupId: 0, paths: ["/big.bin"] });
    const cut = new AbortController();
    const res = await fetch(t.fileUrl + url, { signal: cut.signal });
    const reader = res.body!.getReader();
    await reader.read();
    cut.abort();
    await reader.cancel().catch(() => undefined);
    // A range that stops before the end is not a finished download either.
    const range = await fetch(t.fileUrl + url, { headers: { range: "bytes=0-99" } });
    expect(range.status).toBe(206);
    await range.arrayBuffer();
    await download(socket, ["/folder/inside.txt"]);
    const services = t.engine.services.transferNotices;
    await until(() => services.gathered(u.id)?.downloadCount === 1);
    await services.flush();
    const notice = (await adminNotices()).notic_list[0]!;
    expect(notice.title).toContain("switch_user");
    expect(notice.content).toContain("Downloaded 1 time:");
    expect(notice.content).not.toContain("big.bin");

    expect((await t.call("PATCH", `/api/admin/users/${u.id}`, { token: await t.adminToken(), body: { notifyAdmin: false } })).body.code).toBe(200);
    const before = (await adminNotices()).total;
    await upload(u, socket, { "/after-off.txt": "off" });
    await download(socket, ["/after-off.txt"]);
    await services.flush();
    expect(services.gathered(u.id)).toBeNull();
    expect((await adminNotices()).total).toBe(before);
    await socket.close();
  });
});

describe("the window", () => {
  it("sends the gathered notice by itself when the window ends, without a mail when the server has no account", async () => {
    const short = await startTestEngine({ FERRY_TRANSFER_NOTICE_WINDOW: "1" });
    try {
      const u = await short.createUser("window_user", { permission: PERMISSION_FULL, notifyAdmin: true });
      const socket = await connectFiles(short.fileUrl, u.socketToken);
      const data = Buffer.from("window");
      const created = await tusClient(short.fileUrl, u.socketToken).create({ groupId: "0", path: "/w.txt" }, data.length, data);
      expect(await socket.ok("commit", { uploadId: created.id!, hash: await blake3Hex(data) })).toMatchObject({ path: "/w.txt" });
      const admin = await short.adminToken();
      let list: { total: number; notic_list: Notice[] } = { total: 0, notic_list: [] };
      for (let i = 0; i < 1000 && list.total === 0; i++) {
        await new Promise((r) => setTimeout(r, 20));
        list = (await short.call("GET", "/api/notice/list", { token: admin })).body.data;
      }
      expect(list.total).toBe(1);
      expect(list.notic_list[0]!.content).toContain("/w.txt");
      await socket.close();
    } finally {
      await short.stop();
    }
  });
});
