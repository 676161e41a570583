import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { codec, startTestEngine, type TestEngine } from "../support/engine";
import { startTestSmtp, type TestSmtp } from "../support/smtp";

vi.setConfig({ testTimeout: 90_000 });

/*
 * The administrator's notifications (admin document sections 3 and 5) and the Email setting's test
 * mail, against the real engine and a real SMTP server (smtp-server) on loopback.
 */

const SMTP_USER = "ferry@mail.test";
const SMTP_PASS = "Smtp-Pass#2026";

let t: TestEngine;
let smtp: TestSmtp;
let admin: string;

beforeAll(async () => {
  t = await startTestEngine({ FERRY_SMTP_ALLOW_PRIVATE: "1" });
  smtp = await startTestSmtp({ user: SMTP_USER, password: SMTP_PASS, mode: "none" });
  admin = await t.adminToken();
});
afterAll(async () => {
  await t?.stop();
  await smtp?.close();
});

const serverAccount = (over: Record<string, unknown> = {}) => ({
  emailFromName: "Ferry Server",
  emailType: 9,
  emailAccount: SMTP_USER,
  emailPassword: codec.encode(SMTP_PASS),
  emailSmtpHost: smtp.host,
  emailSmtpPort: smtp.port,
  emailEncryptType: 0,
  ...over,
});
const setServerAccount = async (over: Record<string, unknown> = {}) => {
  const reply = await t.call("PATCH", "/api/admin/settings/mail", { token: admin, body: serverAccount(over) });
  expect(reply.body.code).toBe(200);
};
const dropServerAccount = () => t.engine.services.db.kysely.deleteFrom("smtp_accounts").where("owner", "=", "server").execute();
const send = (body: Record<string, unknown>) => t.call("POST", "/api/admin/notices", { token: admin, body });
const adminList = (query = "") => t.call("GET", `/api/admin/notices${query}`, { token: admin });
const inbox = (token: string) => t.call("GET", "/api/notice/list", { token });
/** Waits for the notice's mails to be done (the mailing runs after the answer). */
const mailed = async (id: number) => {
  await t.engine.services.noticeMailing.idle();
  const list = (await adminList("?pageSize=100")).body.data.list as Array<{ id: number; mail: Record<string, number> }>;
  return list.find((n) => n.id === id)!;
};

describe("composing a notification: the spec's rules, by the engine", () => {
  it("refuses no way (4440), no receivers (4441), and e-mail without the server's mail account (4442); nothing is stored", async () => {
    await dropServerAccount();
    const u = await t.createUser("rules_u", { email: "rules_u@mail.test" });
    const before = (await adminList()).body.data.total as number;
    expect((await send({ title: "No way", content: "x", receivers: [u.id], way: [] })).body.code).toBe(4440);
    expect((await send({ title: "No receivers", content: "x", receivers: [], way: ["website"] })).body.code).toBe(4441);
    const noAccount = await send({ title: "By mail", content: "x", receivers: [u.id], way: ["website", "email"] });
    expect(noAccount.body.code).toBe(4442);
    expect(noAccount.body.data).toMatchObject({ reason: "server-account-not-set" });
    // A missing way is a missing field (401), an unknown way a bad value.
    expect((await send({ title: "Missing", content: "x", receivers: [u.id] })).body.code).toBe(401);
    expect((await send({ title: "Bad", content: "x", receivers: [u.id], way: ["pigeon"] })).body.code).not.toBe(200);
    expect((await adminList()).body.data.total).toBe(before);
    expect((await inbox(u.token)).body.data.total).toBe(0);
  });
});

describe("notifications on the website", () => {
  it("reach picked users, count reads, and list with search, sort and paging", async () => {
    const a = await t.createUser("web_a");
    const b = await t.createUser("web_b");
    const c = await t.createUser("web_c");
    const first = await send({ title: "Zebra maintenance", content: "Servers restart at 22:00", receivers: [a.id, b.id], way: ["website"] });
    expect(first.body.code).toBe(200);
    expect(first.body.data).toMatchObject({ title: "Zebra maintenance", way: ["website"], receivers: 2, read: 0, receiverAccounts: ["web_a", "web_b"], mail: { queued: 0, sent: 0, failed: 0, noAddress: 0 } });
    t.clock.advance(1000);
    const second = (await send({ title: "Alpha release", content: "New client version", receivers: [c.id], way: ["website"] })).body.data;

    expect((await inbox(a.token)).body.data).toMatchObject({ total: 1, unreadCount: 1 });
    expect((await inbox(c.token)).body.data.notic_list[0].title).toBe("Alpha release");
    await t.call("PATCH", "/api/notice/status/update", { token: a.token, body: { noticeIds: [first.body.data.id] } });
    const listed = (await adminList("?search=zebra")).body.data;
    expect(listed.total).toBe(1);
    expect(listed.list[0]).toMatchObject({ id: first.body.data.id, receivers: 2, read: 1 });
    // Search also looks in the content, case-insensitive; % is a literal.
    expect((await adminList("?search=CLIENT%20VERSION")).body.data.list.map((n: { id: number }) => n.id)).toEqual([second.id]);
    expect((await adminList("?search=%25")).body.data.total).toBe(0);
    // Newest first by default; by title ascending; by read descending.
    expect((await adminList()).body.data.list[0].id).toBe(second.id);
    const byTitle = (await adminList("?orderBy=title&order=asc&pageSize=100")).body.data.list.map((n: { title: string }) => n.title);
    expect(byTitle.indexOf("Alpha release")).toBeLessThan(byTitle.indexOf("Zebra maintenance"));
    expect((await adminList("?orderBy=read&order=desc")).body.data.list[0].id).toBe(first.body.data.id);
    expect((await adminList("?orderBy=nothing")).body.code).toBe(400);
    const page = (await adminList("?pageSize=1&pageNum=2")).body.data;
    expect(page).toMatchObject({ size: 1, current: 2 });
    expect(page.list).toHaveLength(1);

    const receivers = (await t.call("GET", `/api/admin/notices/${first.body.data.id}/receivers`, { token: admin })).body.data;
    expect(receivers.list).toEqual([
      { userId: a.id, account: "web_a", email: "", read: true, mail: "none", mailError: "" },
      { userId: b.id, account: "web_b", email: "", read: false, mail: "none", mailError: "" },
    ]);
  });

  it("go to all users, and are deleted one or several at once", async () => {
    const d = await t.createUser("all_d");
    const all = (await send({ title: "For everyone", content: "Hello all", receivers: "all", way: ["website"] })).body.data;
    const users = (await t.call("GET", "/api/admin/users?pageSize=100", { token: admin })).body.data.list.filter((u: { role: string }) => u.role === "user");
    expect(all.receivers).toBe(users.length);
    expect((await inbox(d.token)).body.data.unreadCount).toBe(1);
    const other = (await send({ title: "Second", content: "x", receivers: [d.id], way: ["website"] })).body.data;
    const gone = await t.call("POST", "/api/admin/notices/delete", { token: admin, body: { ids: [all.id, other.id, 999_999] } });
    expect(gone.body.data).toEqual({ deleted: 2 });
    expect((await inbox(d.token)).body.data).toMatchObject({ total: 0, unreadCount: 0 });
    expect((await t.call("GET", `/api/admin/notices/${all.id}/receivers`, { token: admin })).body.code).toBe(4203);
  });
});

describe("notifications by e-mail", () => {
  it("arrive through the server's account for each picked receiver with an address; one without is recorded", async () => {
    await setServerAccount();
    const withMail = await t.createUser("mail_x", { email: "mail_x@mail.test" });
    const withMail2 = await t.createUser("mail_y", { email: "mail_y@mail.test" });
    const without = await t.createUser("mail_z");
    const start = smtp.received.length;
    const reply = await send({ title: "Planned outage", content: "Line one\n<b>not bold</b>", receivers: [withMail.id, withMail2.id, without.id], way: ["email"] });
    expect(reply.body.code).toBe(200);
    expect(reply.body.data.way).toEqual(["email"]);
    expect(reply.body.data.mail).toMatchObject({ queued: 2, noAddress: 1 });

    const got = (await smtp.waitFor(start + 2)).slice(start);
    expect(got.map((r) => r.envelopeTo[0]).sort()).toEqual(["mail_x@mail.test", "mail_y@mail.test"]);
    for (const r of got) {
      expect(r.user).toBe(SMTP_USER);
      expect(r.envelopeTo).toHaveLength(1);
      expect(r.mail.subject).toBe("Planned outage");
      expect(r.mail.text).toContain("Line one\n<b>not bold</b>");
      expect(r.mail.html).toContain("&lt;b&gt;not bold&lt;/b&gt;");
      expect(r.mail.from?.value[0]).toMatchObject({ address: SMTP_USER, name: "Ferry Server" });
    }
    expect((await mailed(reply.body.data.id)).mail).toEqual({ queued: 0, sent: 2, failed: 0, noAddress: 1 });
    // E-mail only: not on the users' page.
    expect((await inbox(withMail.token)).body.data).toMatchObject({ total: 0, unreadCount: 0 });
    const receivers = (await t.call("GET", `/api/admin/notices/${reply.body.data.id}/receivers`, { token: admin })).body.data.list;
    expect(receivers.map((r: { account: string; mail: string }) => `${r.account}:${r.mail}`)).toEqual(["mail_x:sent", "mail_y:sent", "mail_z:no-address"]);
  });

  it("go to all users with an address, and also on the website when both ways are chosen", async () => {
    await setServerAccount();
    const w = await t.createUser("both_w", { email: "both_w@mail.test" });
    const addressed = (await t.call("GET", "/api/admin/users?pageSize=100", { token: admin })).body.data.list.filter((u: { role: string; email: string }) => u.role === "user" && u.email);
    const start = smtp.received.length;
    const reply = (await send({ title: "All by both ways", content: "Hi", receivers: "all", way: ["website", "email"] })).body.data;
    expect(reply.mail.queued).toBe(addressed.length);
    await smtp.waitFor(start + addressed.length);
    const to = smtp.received.slice(start).map((r) => r.envelopeTo[0]).sort();
    expect(to).toEqual(addressed.map((u: { email: string }) => u.email).sort());
    expect((await mailed(reply.id)).mail).toMatchObject({ queued: 0, sent: addressed.length, failed: 0 });
    expect((await inbox(w.token)).body.data.notic_list[0]).toMatchObject({ title: "All by both ways", isShowed: false });
  });

  it("record the mail server's answer when it refuses (wrong password saved)", async () => {
    await setServerAccount({ emailPassword: codec.encode("Wrong-Pass#1") });
    try {
      const r = await t.createUser("fail_r", { email: "fail_r@mail.test" });
      const reply = (await send({ title: "Will fail", content: "x", receivers: [r.id], way: ["email"] })).body.data;
      const row = await mailed(reply.id);
      expect(row.mail).toMatchObject({ queued: 0, sent: 0, failed: 1 });
      const receiver = (await t.call("GET", `/api/admin/notices/${reply.id}/receivers`, { token: admin })).body.data.list[0];
      expect(receiver.mail).toBe("failed");
      expect(receiver.mailError).toMatch(/^535\b.*Invalid username or password/);
    } finally {
      await setServerAccount();
    }
  });
});

describe("the Email setting", () => {
  it("refuses an encryption the provider does not allow, by the engine, and presets nothing unsaved", async () => {
    await setServerAccount();
    const gmailNone = await t.call("PATCH", "/api/admin/settings/mail", { token: admin, body: { emailType: 0, emailSmtpHost: "smtp.gmail.com", emailSmtpPort: 465, emailEncryptType: 0 } });
    expect(gmailNone.body.code).toBe(400);
    expect(gmailNone.body.data).toMatchObject({ field: "emailEncryptType" });
    const outlookSsl = await t.call("PATCH", "/api/admin/settings/mail", { token: admin, body: { emailType: 5, emailSmtpHost: "smtp-mail.outlook.com", emailSmtpPort: 587, emailEncryptType: 1 } });
    expect(outlookSsl.body.code).toBe(400);
    const badProvider = await t.call("PATCH", "/api/admin/settings/mail", { token: admin, body: { emailType: 10 } });
    expect(badProvider.body.code).toBe(400);
    const stored = (await t.call("GET", "/api/admin/settings/mail", { token: admin })).body.data;
    expect(stored).toMatchObject({ emailType: 9, emailSmtpHost: smtp.host, emailEncryptType: 0, emailPassword: "", hasPassword: true });
  });

  it("sends a test mail that arrives, and reports the server's answer", async () => {
    await setServerAccount();
    const start = smtp.received.length;
    const reply = await t.call("POST", "/api/admin/settings/mail/test", { token: admin, body: { to: "someone@mail.test", language: "zh" } });
    expect(reply.body.code).toBe(200);
    expect(reply.body.data.to).toBe("someone@mail.test");
    expect(reply.body.data.response).toMatch(/^250\b/);
    const [got] = (await smtp.waitFor(start + 1)).slice(start);
    expect(got!.envelopeTo).toEqual(["someone@mail.test"]);
    expect(got!.mail.subject).toBe("Ferry 测试邮件");
  });

  it("sends it to the administrator's own address by default", async () => {
    await setServerAccount();
    const me = (await t.call("GET", "/api/admin/users?pageSize=100", { token: admin })).body.data.list.find((u: { role: string }) => u.role === "admin");
    const before = me.email as string;
    await t.engine.services.db.kysely.updateTable("users").set({ email: "boss@mail.test" }).where("id", "=", me.id).execute();
    try {
      const start = smtp.received.length;
      const reply = await t.call("POST", "/api/admin/settings/mail/test", { token: admin, body: {} });
      expect(reply.body.data.to).toBe("boss@mail.test");
      const [got] = (await smtp.waitFor(start + 1)).slice(start);
      expect(got!.envelopeTo).toEqual(["boss@mail.test"]);
      expect(got!.mail.subject).toBe("Ferry test mail");
    } finally {
      await t.engine.services.db.kysely.updateTable("users").set({ email: before || null }).where("id", "=", me.id).execute();
    }
  });

  it("reports the SMTP server's refusal with its text, and a connection failure with its error", async () => {
    await setServerAccount({ emailPassword: codec.encode("Wrong-Pass#1") });
    try {
      const refused = await t.call("POST", "/api/admin/settings/mail/test", { token: admin, body: { to: "someone@mail.test" } });
      expect(refused.body.code).toBe(4443);
      expect(refused.body.data).toMatchObject({ responseCode: 535 });
      expect(refused.body.data.response).toContain("Invalid username or password");
      expect(refused.body.message).toContain("Invalid username or password");
    } finally {
      await setServerAccount();
    }
    // A port nothing listens on: no SMTP answer, the connection error.
    const closed = await startTestSmtp({ user: SMTP_USER, password: SMTP_PASS, mode: "none" });
    const port = closed.port;
    await closed.close();
    await setServerAccount({ emailSmtpPort: port });
    try {
      const unreachable = await t.call("POST", "/api/admin/settings/mail/test", { token: admin, body: { to: "someone@mail.test" } });
      expect(unreachable.body.code).toBe(4444);
      expect(unreachable.body.data.reason).toMatch(/ECONNREFUSED/);
    } finally {
      await setServerAccount();
    }
  });

  it("refuses a test without a saved account (4135) and a bad address (1022)", async () => {
    const removed = await t.call("DELETE", "/api/admin/settings/mail", { token: admin });
    expect(removed.body.data).toMatchObject({ configured: false, hasPassword: false, emailPassword: "" });
    const user = await t.createUser("after_removal");
    expect((await t.call("GET", "/api/service/info", { token: user.token })).body.data.server.emailAccount).toBe("");
    try {
      expect((await t.call("POST", "/api/admin/settings/mail/test", { token: admin, body: { to: "a@mail.test" } })).body.code).toBe(4135);
    } finally {
      await setServerAccount();
    }
    expect((await t.call("POST", "/api/admin/settings/mail/test", { token: admin, body: { to: "not an address" } })).body.code).toBe(1022);
    expect((await t.call("POST", "/api/admin/settings/mail/test", { token: user.token, body: { to: "a@mail.test" } })).body.code).toBe(1008);
  });
});
