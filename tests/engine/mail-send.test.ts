import { rm } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { FerryError } from "../../server/errors";
import type { ShareMailer } from "../../server/mail/share-mail";
import { codec, startTestEngine, type TestEngine } from "../support/engine";
import { makeLocalhostCert, startTestSmtp, type TestSmtp } from "../support/smtp";

vi.setConfig({ testTimeout: 90_000 });

const SMTP_USER = "sender@example.com";
const SMTP_PASS = "Relay#Pass-42";
const MARKUP = '<img src=x onerror="alert(1)">.txt';

let cert: ReturnType<typeof makeLocalhostCert>;
let t: TestEngine;
let plain: TestSmtp;
let mailer: ShareMailer;

beforeAll(async () => {
  cert = makeLocalhostCert();
  // The test's SMTP servers are on loopback, so this engine allows private targets; FERRY_SMTP_CA trusts the test certificate.
  t = await startTestEngine({ FERRY_SMTP_ALLOW_PRIVATE: "1", FERRY_SMTP_CA: cert.certFile });
  plain = await startTestSmtp({ user: SMTP_USER, password: SMTP_PASS, mode: "none" });
  mailer = t.engine.services.shareMailer;
});
afterAll(async () => {
  await plain?.close();
  await t?.stop();
  await rm(cert.dir, { recursive: true, force: true });
});

const smtpBody = (server: { host: string; port: number }, over: Record<string, unknown> = {}) => ({
  emailFromName: "Alice Sender",
  emailType: 9,
  emailAccount: SMTP_USER,
  emailPassword: codec.encode(SMTP_PASS),
  emailSmtpHost: server.host,
  emailSmtpPort: server.port,
  emailEncryptType: 0,
  ...over,
});

async function userWithSmtp(account: string, server: { host: string; port: number }, over: Record<string, unknown> = {}, userOptions: Record<string, unknown> = {}) {
  // Sender type 2: the user's own account (docs/mail.md, "Whose account").
  const u = await t.createUser(account, { email: `${account}@owner.example.org`, emailSenderType: 2, ...userOptions });
  const saved = await t.call("POST", "/api/user/smtp/update", { token: u.token, body: smtpBody(server, over) });
  expect(saved.body.code).toBe(200);
  return u;
}

const codeOf = async (promise: Promise<unknown>) => {
  try {
    await promise;
    return 200;
  } catch (error) {
    if (error instanceof FerryError) return error.code;
    throw error;
  }
};

describe("share mails through the user's own SMTP account", () => {
  it("send a download link in English with link, password, files, expiry and message; names with markup are escaped", async () => {
    const u = await userWithSmtp("mail_dl_en", plain);
    expect(await mailer.canSend(u.id)).toBe(true);
    const before = plain.received.length;
    await mailer.sendShareLink({
      ownerId: u.id,
      to: ["bob@example.net", "carol@example.net"],
      language: "en",
      url: "https://ferry.example.com/share/abc123",
      password: "k3Yq",
      fileNames: ["report.pdf", MARKUP],
      message: "Here are the files.\n<b>Thanks</b>",
      kind: "download",
      expiresAt: Date.UTC(2030, 0, 2, 3, 4) / 1000,
    });
    const [got] = (await plain.waitFor(before + 1)).slice(before);
    const { mail } = got!;
    // The server checked AUTH against the decrypted password.
    expect(got!.user).toBe(SMTP_USER);
    expect(plain.auths.at(-1)).toMatchObject({ user: SMTP_USER, password: SMTP_PASS });
    expect(got!.envelopeTo.sort()).toEqual(["bob@example.net", "carol@example.net"]);
    expect(mail.from?.value[0]).toMatchObject({ name: "Alice Sender", address: SMTP_USER });
    expect(mail.subject).toBe("Alice Sender shared files with you");
    expect(mail.text).toContain("https://ferry.example.com/share/abc123");
    expect(mail.text).toContain("Password: k3Yq");
    expect(mail.text).toContain("Expires: 2030-01-02 03:04 UTC");
    expect(mail.text).toContain("report.pdf");
    expect(mail.text).toContain(MARKUP);
    expect(mail.text).toContain("Here are the files.");
    const html = String(mail.html);
    expect(html).toContain('<a href="https://ferry.example.com/share/abc123">');
    expect(html).toContain("<strong>k3Yq</strong>");
    expect(html).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;.txt");
    expect(html).not.toContain("<img");
    expect(html).toContain("&lt;b&gt;Thanks&lt;/b&gt;");
    expect(html).not.toContain("<b>");
  });

  it("send an upload invitation in Chinese, and a link without a password or expiry", async () => {
    const u = await userWithSmtp("mail_up_zh", plain);
    const before = plain.received.length;
    await mailer.sendShareLink({
      ownerId: u.id,
      to: ["dave@example.net"],
      language: "zh",
      url: "https://ferry.example.com/share/inv1",
      password: "Ab12",
      fileNames: ["收件箱"],
      message: "",
      kind: "upload",
      expiresAt: null,
    });
    await mailer.sendShareLink({
      ownerId: u.id,
      to: ["erin@example.net"],
      language: "en",
      url: "https://ferry.example.com/share/open",
      password: null,
      fileNames: ["photo.jpg"],
      message: "",
      kind: "download",
      expiresAt: null,
    });
    const [invite, open] = (await plain.waitFor(before + 2)).slice(before);
    expect(invite!.mail.subject).toBe("Alice Sender 邀请您上传文件");
    expect(invite!.mail.text).toContain("邀请您上传文件");
    expect(invite!.mail.text).toContain("收件箱");
    expect(invite!.mail.text).toContain("提取密码： Ab12");
    expect(invite!.mail.text).toContain("永久有效");
    expect(invite!.mail.text).toContain("https://ferry.example.com/share/inv1");
    expect(String(invite!.mail.html)).toContain("<strong>Ab12</strong>");

    expect(open!.mail.subject).toBe("Alice Sender shared files with you");
    expect(open!.mail.text).toContain("https://ferry.example.com/share/open");
    expect(open!.mail.text).not.toContain("Password");
    expect(String(open!.mail.html)).not.toContain("<strong>");
    expect(open!.mail.text).toContain("Never expires");
  });

  it("notify the owner of a download and of an upload, in both languages", async () => {
    const u = await userWithSmtp("mail_notice", plain);
    const before = plain.received.length;
    await mailer.notifyOwner({ ownerId: u.id, language: "en", event: "download", url: "https://ferry.example.com/share/d1", fileNames: [MARKUP], visitorAddress: "203.0.113.9" });
    await mailer.notifyOwner({ ownerId: u.id, language: "zh", event: "upload", url: "https://ferry.example.com/share/u1", fileNames: ["合同.docx"], visitorAddress: "198.51.100.7" });
    await mailer.notifyOwner({ ownerId: u.id, language: "zh", event: "download", url: "https://ferry.example.com/share/d2", fileNames: ["a.txt"], visitorAddress: "198.51.100.8" });
    await mailer.notifyOwner({ ownerId: u.id, language: "en", event: "upload", url: "https://ferry.example.com/share/u2", fileNames: ["b.txt"], visitorAddress: "198.51.100.9" });
    const [dlEn, upZh, dlZh, upEn] = (await plain.waitFor(before + 4)).slice(before);
    for (const m of [dlEn, upZh, dlZh, upEn]) expect(m!.envelopeTo).toEqual(["mail_notice@owner.example.org"]);
    expect(dlEn!.mail.subject).toBe("Your shared files were downloaded");
    expect(dlEn!.mail.text).toContain("203.0.113.9");
    expect(dlEn!.mail.text).toContain("https://ferry.example.com/share/d1");
    expect(String(dlEn!.mail.html)).toContain("&lt;img src=x");
    expect(String(dlEn!.mail.html)).not.toContain("<img");
    expect(upZh!.mail.subject).toBe("有人通过您的邀请链接上传了文件");
    expect(upZh!.mail.text).toContain("合同.docx");
    expect(upZh!.mail.text).toContain("198.51.100.7");
    expect(dlZh!.mail.subject).toBe("您分享的文件已被下载");
    expect(upEn!.mail.subject).toBe("Files were uploaded through your invitation");
  });

  it("send one mail per recipient when the user's share-mail mode is separate", async () => {
    const u = await userWithSmtp("mail_separate", plain, {}, { shareEmailMode: 1 });
    const before = plain.received.length;
    await mailer.sendShareLink({ ownerId: u.id, to: ["f@example.net", "g@example.net", "f@example.net"], language: "en", url: "https://x.example/share/s", password: null, fileNames: ["x"], message: "", kind: "download", expiresAt: null });
    const got = (await plain.waitFor(before + 2)).slice(before);
    expect(got.map((m) => m.envelopeTo)).toEqual([["f@example.net"], ["g@example.net"]]);
  });

  it("refuse recipients and links that could inject headers or script", async () => {
    const u = await userWithSmtp("mail_inject", plain);
    const before = plain.received.length;
    const base = { ownerId: u.id, language: "en" as const, url: "https://x.example/share/s", password: null, fileNames: ["x"], message: "", kind: "download" as const, expiresAt: null };
    expect(await codeOf(mailer.sendShareLink({ ...base, to: ["bob@example.net\r\nBcc: eve@example.net"] }))).toBe(1022);
    expect(await codeOf(mailer.sendShareLink({ ...base, to: ["bob@example.net\nSubject: spoofed"] }))).toBe(1022);
    expect(await codeOf(mailer.sendShareLink({ ...base, to: ["not-an-address"] }))).toBe(1022);
    expect(await codeOf(mailer.sendShareLink({ ...base, to: ["bob@example.net"], url: "javascript:alert(1)" }))).toBe(400);
    // A from-name that got CR/LF into the database some other way is still refused as a header.
    await t.engine.services.db.kysely.updateTable("smtp_accounts").set({ from_name: "Alice\r\nBcc: eve@example.net" }).where("owner", "=", `user:${u.id}`).execute();
    expect(await codeOf(mailer.sendShareLink({ ...base, to: ["bob@example.net"] }))).toBe(400);
    expect(plain.received.length).toBe(before);
  });

  it("report a refused SMTP login as 1068 and an unreachable server as 4139", async () => {
    const wrong = await userWithSmtp("mail_wrongpw", plain, { emailPassword: codec.encode("not-the-password") });
    const base = { language: "en" as const, url: "https://x.example/share/s", password: null, fileNames: ["x"], message: "", kind: "download" as const, expiresAt: null, to: ["bob@example.net"] };
    expect(await codeOf(mailer.sendShareLink({ ...base, ownerId: wrong.id }))).toBe(1068);
    // STARTTLS is required when chosen: a server without it is not used in plain text.
    const noTls = await userWithSmtp("mail_notls", plain, { emailEncryptType: 2 });
    const before = plain.received.length;
    expect(await codeOf(mailer.sendShareLink({ ...base, ownerId: noTls.id }))).toBe(4139);
    expect(plain.received.length).toBe(before);
  });
});

describe("encrypted SMTP", () => {
  it("sends over SSL (TLS from the start) and over STARTTLS, verifying the certificate", async () => {
    const ssl = await startTestSmtp({ user: SMTP_USER, password: SMTP_PASS, mode: "ssl", tls: cert });
    const starttls = await startTestSmtp({ user: SMTP_USER, password: SMTP_PASS, mode: "starttls", tls: cert });
    try {
      const base = { language: "en" as const, url: "https://x.example/share/tls", password: "pw12", fileNames: ["x"], message: "", kind: "download" as const, expiresAt: null, to: ["bob@example.net"] };
      const a = await userWithSmtp("mail_ssl", { host: "localhost", port: ssl.port }, { emailEncryptType: 1 });
      await mailer.sendShareLink({ ...base, ownerId: a.id });
      const [viaSsl] = await ssl.waitFor(1);
      expect(viaSsl!.secure).toBe(true);
      expect(ssl.auths[0]).toMatchObject({ password: SMTP_PASS, secure: true });

      const b = await userWithSmtp("mail_starttls", { host: "localhost", port: starttls.port }, { emailEncryptType: 2 });
      await mailer.sendShareLink({ ...base, ownerId: b.id });
      const [viaStarttls] = await starttls.waitFor(1);
      expect(viaStarttls!.secure).toBe(true);
      expect(starttls.auths[0]).toMatchObject({ password: SMTP_PASS, secure: true });
      expect(viaStarttls!.mail.text).toContain("pw12");

      // The certificate names "localhost": reaching the same server by its IP does not verify, so nothing is sent.
      const c = await userWithSmtp("mail_badname", { host: ssl.host, port: ssl.port }, { emailEncryptType: 1 });
      expect(await codeOf(mailer.sendShareLink({ ...base, ownerId: c.id }))).toBe(4139);
      expect(ssl.received.length).toBe(1);
    } finally {
      await ssl.close();
      await starttls.close();
    }
  });
});

describe("the server's account (sender type 1)", () => {
  it("is used for a user of sender type 1 once it is set, and canSend says whether it exists", async () => {
    const u = await t.createUser("mail_fallback", { email: "fallback@owner.example.org", emailSenderType: 1 });
    const base = { ownerId: u.id, language: "en" as const, url: "https://x.example/share/f", password: null, fileNames: ["x"], message: "", kind: "download" as const, expiresAt: null, to: ["bob@example.net"] };
    expect(await mailer.canSend(u.id)).toBe(false);
    expect(await codeOf(mailer.sendShareLink(base))).toBe(4135);
    expect(await codeOf(mailer.notifyOwner({ ownerId: u.id, language: "en", event: "download", url: "https://x.example/share/f", fileNames: ["x"], visitorAddress: "1.2.3.4" }))).toBe(4135);

    const admin = await t.adminToken();
    const saved = await t.call("PATCH", "/api/admin/settings/mail", { token: admin, body: smtpBody(plain, { emailFromName: "Ferry Server" }) });
    expect(saved.body.code).toBe(200);
    expect(await mailer.canSend(u.id)).toBe(true);
    const before = plain.received.length;
    await mailer.sendShareLink(base);
    const [got] = (await plain.waitFor(before + 1)).slice(before);
    expect(got!.mail.from?.value[0]).toMatchObject({ name: "Ferry Server", address: SMTP_USER });
    expect(got!.mail.subject).toBe("Ferry Server shared files with you");
  });
});

describe("without FERRY_SMTP_ALLOW_PRIVATE", () => {
  it("refuses to connect when the stored host now points at a private address", async () => {
    const strict = await startTestEngine();
    try {
      const u = await strict.createUser("mail_strict", { email: "strict@owner.example.org", emailSenderType: 2 });
      const saved = await strict.call("POST", "/api/user/smtp/update", { token: u.token, body: smtpBody({ host: "8.8.8.8", port: plain.port }) });
      expect(saved.body.code).toBe(200);
      // As if its DNS name had been re-pointed at loopback after it was saved.
      await strict.engine.services.db.kysely.updateTable("smtp_accounts").set({ host: plain.host }).where("owner", "=", `user:${u.id}`).execute();
      const before = plain.received.length;
      const authsBefore = plain.auths.length;
      let caught: unknown;
      await strict.engine.services.shareMailer
        .sendShareLink({ ownerId: u.id, language: "en", url: "https://x.example/share/p", password: null, fileNames: ["x"], message: "", kind: "download", expiresAt: null, to: ["bob@example.net"] })
        .catch((error: unknown) => (caught = error));
      expect(caught).toBeInstanceOf(FerryError);
      expect((caught as FerryError).code).toBe(4133);
      expect((caught as FerryError).data).toMatchObject({ reason: "private-address" });
      expect(plain.received.length).toBe(before);
      expect(plain.auths.length).toBe(authsBefore);
    } finally {
      await strict.stop();
    }
  });
});
