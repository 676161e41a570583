import { mkdir, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { PERMISSION_FULL } from "../../contract/permissions";
import { codec, startTestEngine, type TestEngine } from "../support/engine";
import { downloadShared } from "../support/share-visitor";
import { startTestSmtp, type TestSmtp } from "../support/smtp";

/** Mail triggered by share links, through a real SMTP server (smtp-server) started here. */
vi.setConfig({ testTimeout: 90_000, hookTimeout: 120_000 });

const SMTP_USER = "relay@example.com";
const SMTP_PASS = "Relay#Pass-77";
const BASE = "https://files.example.com";

let t: TestEngine;
let smtp: TestSmtp;
beforeAll(async () => {
  t = await startTestEngine({ FERRY_SMTP_ALLOW_PRIVATE: "1", FERRY_WEB_ORIGINS: BASE });
  smtp = await startTestSmtp({ user: SMTP_USER, password: SMTP_PASS, mode: "none" });
});
afterAll(async () => {
  await smtp?.close();
  await t?.stop();
});

async function owner(account: string, port = smtp.port) {
  // Sender type 2: the owner's own account (docs/mail.md, "Whose account").
  const u = await t.createUser(account, { permission: PERMISSION_FULL, email: `${account}@owner.example.org`, emailSenderType: 2 });
  const saved = await t.call("POST", "/api/user/smtp/update", {
    token: u.token,
    body: { emailFromName: "Owner", emailType: 9, emailAccount: SMTP_USER, emailPassword: codec.encode(SMTP_PASS), emailSmtpHost: smtp.host, emailSmtpPort: port, emailEncryptType: 0 },
  });
  expect(saved.body.code).toBe(200);
  const home = path.join(t.dataDir, "storage", "users", account);
  await mkdir(path.join(home, "inbox"), { recursive: true });
  await writeFile(path.join(home, "report.pdf"), "pdf");
  return u;
}

describe("share mails", () => {
  it("sends the link and password to the recipients in the chosen language, and notifies the owner of downloads", async () => {
    const u = await owner("mail_share_owner");
    const before = smtp.received.length;
    const made = await t.call("POST", "/api/share/link/create", {
      token: u.token,
      body: {
        shareUrlType: 1, shareBaseUrl: BASE, shareFiles: ["/report.pdf"], needPassword: true, shareUrlPasswd: "Mp4q",
        shareEmail: "one@example.net;two@example.net;one@example.net", shareEmailContent: "Here it is", emailLanguage: 1, notifyEmail: 1,
      },
    });
    expect(made.body).toMatchObject({ code: 200 });
    expect(made.body.data.mailError).toBeUndefined();
    const [mail] = (await smtp.waitFor(before + 1)).slice(before);
    expect(mail!.envelopeTo.sort()).toEqual(["one@example.net", "two@example.net"]);
    expect(mail!.mail.text).toContain(made.body.data.shareUrl);
    expect(mail!.mail.text).toContain("Mp4q");
    expect(mail!.mail.text).toContain("Here it is");
    expect(mail!.mail.subject ?? "").toMatch(/[A-Za-z]/);
    const listed = (await t.call("GET", "/api/share/link/list", { token: u.token })).body.data.sharelinkinfo[0];
    expect(listed).toMatchObject({ shareEmail: "one@example.net;two@example.net", notifyEmail: 1 });

    const token = (await t.call("GET", `/api/share/link/info?url=${encodeURIComponent(made.body.data.shareUrl)}&passwd=Mp4q`)).body.data.token;
    expect((await downloadShared(t, token, ["/report.pdf"])).code).toBe(200);
    const [notice] = (await smtp.waitFor(before + 2)).slice(before + 1);
    expect(notice!.envelopeTo).toEqual(["mail_share_owner@owner.example.org"]);
    expect(notice!.mail.text).toContain(made.body.data.shareUrl);
    expect(notice!.mail.text).toContain("report.pdf");
  });

  it("sends the owner's upload notice for an invitation, in Chinese when asked", async () => {
    const u = await owner("mail_invite_owner");
    const made = (
      await t.call("POST", "/api/share/link/create", {
        token: u.token,
        body: { shareUrlType: 0, shareBaseUrl: BASE, shareServerPath: "/inbox", needPassword: true, shareUrlPasswd: "In5v", notifyEmail: true, emailLanguage: 0 },
      })
    ).body.data;
    const token = (await t.call("GET", `/api/share/link/info?url=${encodeURIComponent(made.shareUrl)}&passwd=In5v`)).body.data.token;
    const access = (await t.engine.services.shares.access.resolveShareToken(token))!;
    const before = smtp.received.length;
    await t.engine.services.shares.recordShareUpload({ access, files: ["/inbox/upload.bin"], visitorAddress: "10.2.3.4" });
    const [notice] = (await smtp.waitFor(before + 1)).slice(before);
    expect(notice!.envelopeTo).toEqual(["mail_invite_owner@owner.example.org"]);
    expect(notice!.mail.text).toContain(made.shareUrl);
    expect(notice!.mail.text).toContain("upload.bin");
    expect(notice!.mail.text).toMatch(/[\u4e00-\u9fff]/);
  });

  it("keeps the link when the mail cannot be sent, and says so", async () => {
    // A port nothing listens on.
    const closed = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, "127.0.0.1", () => {
        const port = (s.address() as { port: number }).port;
        s.close(() => resolve(port));
      });
    });
    const u = await owner("mail_broken_owner", closed);
    const made = await t.call("POST", "/api/share/link/create", {
      token: u.token,
      body: { shareUrlType: 1, shareBaseUrl: BASE, shareFiles: ["/report.pdf"], shareEmail: "friend@example.net" },
    });
    expect(made.body.code).toBe(200);
    expect(made.body.data.mailError).toBeGreaterThan(1000);
    const listed = (await t.call("GET", "/api/share/link/list", { token: u.token })).body.data;
    expect(listed.sharelinkinfo.map((i: { shareId: string }) => i.shareId)).toEqual([made.body.data.shareId]);
  });
});
