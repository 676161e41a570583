import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { PERMISSION_FULL } from "../../contract/permissions";
import { insertReturningId, openDatabase } from "../../server/db/connect";
import { createTestDatabase } from "../support/databases";
import { codec, startTestEngine, type TestEngine } from "../support/engine";
import { downloadShared } from "../support/share-visitor";
import { startTestSmtp, type TestSmtp } from "../support/smtp";

/**
 * The administrator's "Notification e-mail source" (users.emailSenderType) decides which SMTP
 * account a user's share mails and owner notices go through (docs/mail.md, "Whose account"):
 * 0 none, 1 the server's, 2 the user's own. Two real SMTP servers (smtp-server), one for the
 * server's account and one for the users' own, tell which one a mail went through.
 */
vi.setConfig({ testTimeout: 90_000, hookTimeout: 120_000 });

const BASE = "https://files.example.com";
const SERVER_USER = "server-relay@example.com";
const SERVER_PASS = "Server#Relay-31";
const OWN_USER = "own-relay@example.com";
const OWN_PASS = "Own#Relay-58";

let t: TestEngine;
let serverSmtp: TestSmtp;
let ownSmtp: TestSmtp;

const smtpBody = (server: TestSmtp, user: string, password: string, fromName: string) => ({
  emailFromName: fromName,
  emailType: 9,
  emailAccount: user,
  emailPassword: codec.encode(password),
  emailSmtpHost: server.host,
  emailSmtpPort: server.port,
  emailEncryptType: 0,
});

beforeAll(async () => {
  t = await startTestEngine({ FERRY_SMTP_ALLOW_PRIVATE: "1", FERRY_WEB_ORIGINS: BASE });
  serverSmtp = await startTestSmtp({ user: SERVER_USER, password: SERVER_PASS, mode: "none" });
  ownSmtp = await startTestSmtp({ user: OWN_USER, password: OWN_PASS, mode: "none" });
  const saved = await t.call("PATCH", "/api/admin/settings/mail", { token: await t.adminToken(), body: smtpBody(serverSmtp, SERVER_USER, SERVER_PASS, "Ferry Server") });
  expect(saved.body.code).toBe(200);
});
afterAll(async () => {
  await serverSmtp?.close();
  await ownSmtp?.close();
  await t?.stop();
});

/** A user with a file to share, of sender type `type`; `ownAccount` saves their own SMTP account first (as type 2). */
async function owner(account: string, type: number, options: { ownAccount?: boolean; shareEmailMode?: number } = {}) {
  const u = await t.createUser(account, {
    permission: PERMISSION_FULL,
    email: `${account}@owner.example.org`,
    emailSenderType: options.ownAccount ? 2 : type,
    shareEmailMode: options.shareEmailMode ?? 0,
  });
  if (options.ownAccount) {
    const saved = await t.call("POST", "/api/user/smtp/update", { token: u.token, body: smtpBody(ownSmtp, OWN_USER, OWN_PASS, `Own ${account}`) });
    expect(saved.body.code).toBe(200);
    if (type !== 2) await setType(u.id, type);
  }
  const home = path.join(t.dataDir, "storage", "users", account);
  await mkdir(home, { recursive: true });
  await writeFile(path.join(home, "report.pdf"), "pdf");
  return u;
}

async function setType(userId: number, emailSenderType: number) {
  const changed = await t.call("PATCH", `/api/admin/users/${userId}`, { token: await t.adminToken(), body: { emailSenderType } });
  expect(changed.body.code).toBe(200);
}

const share = (token: string, body: Record<string, unknown>) =>
  t.call("POST", "/api/share/link/create", { token, body: { shareUrlType: 1, shareBaseUrl: BASE, shareFiles: ["/report.pdf"], needPassword: false, emailLanguage: 1, ...body } });

describe("emailSenderType 0: the user sends no mail", () => {
  it("refuses share mails and owner notices with 4135 (reason sender-none), creates no link, and refuses the user's own SMTP settings with 1008", async () => {
    const u = await owner("sender_none", 0);
    const [serverBefore, ownBefore] = [serverSmtp.received.length, ownSmtp.received.length];
    for (const body of [{ shareEmail: "friend@example.net" }, { notifyEmail: 1 }]) {
      const refused = await share(u.token, body);
      expect(refused.body).toMatchObject({ code: 4135, data: { reason: "sender-none" } });
    }
    expect((await t.call("GET", "/api/share/link/list", { token: u.token })).body.data.total).toBe(0);
    for (const call of [
      t.call("GET", "/api/user/smtp/info", { token: u.token }),
      t.call("POST", "/api/user/smtp/update", { token: u.token, body: smtpBody(ownSmtp, OWN_USER, OWN_PASS, "Mine") }),
    ]) {
      expect((await call).body).toMatchObject({ code: 1008, data: { reason: "email-sender-type", emailSenderType: 0 } });
    }
    expect(await t.engine.services.db.kysely.selectFrom("smtp_accounts").select("owner").where("owner", "=", `user:${u.id}`).executeTakeFirst()).toBeUndefined();
    // A link without mail is made as before.
    expect((await share(u.token, {})).body.code).toBe(200);
    expect([serverSmtp.received.length, ownSmtp.received.length]).toEqual([serverBefore, ownBefore]);
  });

  it("stops the owner notices of a link made before the type was set to 0", async () => {
    const u = await owner("sender_later_none", 2, { ownAccount: true });
    const made = await share(u.token, { notifyEmail: 1 });
    expect(made.body.code).toBe(200);
    const token = async () => (await t.call("GET", `/api/share/link/info?url=${encodeURIComponent(made.body.data.shareUrl)}`)).body.data.token as string;
    const ownBefore = ownSmtp.received.length;
    expect((await downloadShared(t, await token(), ["/report.pdf"])).code).toBe(200);
    const [first] = (await ownSmtp.waitFor(ownBefore + 1)).slice(ownBefore);
    expect(first!.envelopeTo).toEqual(["sender_later_none@owner.example.org"]);

    await setType(u.id, 0);
    const serverBefore = serverSmtp.received.length;
    // A download from another address, counted as the file server counts it: it would notify, and returns after trying.
    await t.engine.services.shares.countDownload({
      access: (await t.engine.services.shares.access.resolveShareToken(await token()))!,
      files: ["/report.pdf"],
      visitorAddress: "198.51.100.20",
    });
    expect([ownSmtp.received.length, serverSmtp.received.length]).toEqual([ownBefore + 1, serverBefore]);
  });
});

describe("emailSenderType 1: the server's account", () => {
  it("sends through the server's account even when the user has saved their own, and refuses the user's own settings", async () => {
    const u = await owner("sender_server", 1, { ownAccount: true });
    const [serverBefore, ownBefore] = [serverSmtp.received.length, ownSmtp.received.length];
    const made = await share(u.token, { shareEmail: "friend@example.net", notifyEmail: 1 });
    expect(made.body).toMatchObject({ code: 200 });
    expect(made.body.data.mailError).toBeUndefined();
    const [mail] = (await serverSmtp.waitFor(serverBefore + 1)).slice(serverBefore);
    expect(mail!.user).toBe(SERVER_USER);
    expect(mail!.mail.from?.value[0]).toMatchObject({ name: "Ferry Server", address: SERVER_USER });
    expect(mail!.envelopeTo).toEqual(["friend@example.net"]);

    const token = (await t.call("GET", `/api/share/link/info?url=${encodeURIComponent(made.body.data.shareUrl)}`)).body.data.token as string;
    expect((await downloadShared(t, token, ["/report.pdf"])).code).toBe(200);
    const [notice] = (await serverSmtp.waitFor(serverBefore + 2)).slice(serverBefore + 1);
    expect(notice!.envelopeTo).toEqual(["sender_server@owner.example.org"]);
    expect(notice!.user).toBe(SERVER_USER);
    expect(ownSmtp.received.length).toBe(ownBefore);

    for (const call of [
      t.call("GET", "/api/user/smtp/info", { token: u.token }),
      t.call("POST", "/api/user/smtp/update", { token: u.token, body: smtpBody(ownSmtp, OWN_USER, OWN_PASS, "Changed") }),
    ]) {
      expect((await call).body).toMatchObject({ code: 1008, data: { reason: "email-sender-type", emailSenderType: 1 } });
    }
  });

  it("refuses with 4135 (reason server-account-not-set) while the server has no account", async () => {
    const bare = await startTestEngine({ FERRY_SMTP_ALLOW_PRIVATE: "1", FERRY_WEB_ORIGINS: BASE });
    try {
      const u = await bare.createUser("sender_server_bare", { permission: PERMISSION_FULL, emailSenderType: 1 });
      await writeFile(path.join(bare.dataDir, "storage", "users", "sender_server_bare", "a.txt"), "a");
      const refused = await bare.call("POST", "/api/share/link/create", {
        token: u.token,
        body: { shareUrlType: 1, shareBaseUrl: BASE, shareFiles: ["/a.txt"], needPassword: false, shareEmail: "friend@example.net" },
      });
      expect(refused.body).toMatchObject({ code: 4135, data: { reason: "server-account-not-set" } });
      expect(await bare.engine.services.shareMailer.canSend(u.id)).toBe(false);
    } finally {
      await bare.stop();
    }
  });

  it("sends one mail per recipient through the API when the user's shareEmailMode is 1, one mail to all when 0", async () => {
    const separate = await owner("sender_separate", 1, { shareEmailMode: 1 });
    const together = await owner("sender_together", 1, { shareEmailMode: 0 });
    const before = serverSmtp.received.length;
    expect((await share(separate.token, { shareEmail: "f@example.net;g@example.net;f@example.net" })).body.code).toBe(200);
    const got = (await serverSmtp.waitFor(before + 2)).slice(before);
    expect(got.map((m) => m.envelopeTo)).toEqual([["f@example.net"], ["g@example.net"]]);
    // Each sees only their own address.
    expect(got.map((m) => m.mail.to && !Array.isArray(m.mail.to) && m.mail.to.value.map((a) => a.address))).toEqual([["f@example.net"], ["g@example.net"]]);

    expect((await share(together.token, { shareEmail: "h@example.net;i@example.net" })).body.code).toBe(200);
    const [one] = (await serverSmtp.waitFor(before + 3)).slice(before + 2);
    expect(one!.envelopeTo.sort()).toEqual(["h@example.net", "i@example.net"]);
  });
});

describe("a new user's and an upgraded user's type", () => {
  it("is 1 for a user made without one: a share mail goes through the server's account", async () => {
    const u = await t.createUser("sender_default", { permission: PERMISSION_FULL, email: "sender_default@owner.example.org" });
    const made = (await t.call("GET", `/api/admin/users/${u.id}`, { token: await t.adminToken() })).body.data as { emailSenderType: number };
    expect(made.emailSenderType).toBe(1);
    const serverBefore = serverSmtp.received.length;
    await mkdir(path.join(t.dataDir, "storage", "users", "sender_default"), { recursive: true });
    await writeFile(path.join(t.dataDir, "storage", "users", "sender_default", "report.pdf"), "pdf");
    expect((await share(u.token, { shareEmail: "friend@example.net" })).body).toMatchObject({ code: 200 });
    const [mail] = (await serverSmtp.waitFor(serverBefore + 1)).slice(serverBefore);
    expect(mail!.user).toBe(SERVER_USER);
  });

  it("keeps what an upgraded database's users had (migration 0014): 2 with an account of their own, else 1; a type set on purpose stays", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "ferry-migrate-"));
    const database = await createTestDatabase(dir);
    try {
      const before = await openDatabase(database.url, { migrateTo: "0013_client_socket_origin" });
      const user = (account: string, type: number) =>
        insertReturningId(before, "users", { account, account_key: account, password_hash: "x", role: "user", home: `/users/${account}`, permission: 0, need_update_pwd: 0, email_sender_type: type, created_at: 1, updated_at: 1 });
      const plain = await user("m_plain", 0);
      const withOwn = await user("m_own", 0);
      const chose = await user("m_chose", 2);
      await before.kysely
        .insertInto("smtp_accounts")
        .values({ owner: `user:${withOwn}`, user_id: withOwn, from_name: "Own", provider: 9, account: "own@example.org", password_enc: "sealed", host: "smtp.example.org", port: 465, encryption: 1, updated_at: 1 })
        .execute();
      await before.close();
      const after = await openDatabase(database.url);
      const rows = await after.kysely.selectFrom("users").select(["id", "email_sender_type"]).where("id", "in", [plain, withOwn, chose]).execute();
      await after.close();
      expect(Object.fromEntries(rows.map((r) => [r.id, r.email_sender_type]))).toEqual({ [plain]: 1, [withOwn]: 2, [chose]: 2 });
    } finally {
      await database.drop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("emailSenderType 2: the user's own account", () => {
  it("sends through the user's own account, never the server's", async () => {
    const u = await owner("sender_own", 2, { ownAccount: true });
    const [serverBefore, ownBefore] = [serverSmtp.received.length, ownSmtp.received.length];
    const made = await share(u.token, { shareEmail: "friend@example.net" });
    expect(made.body.code).toBe(200);
    expect(made.body.data.mailError).toBeUndefined();
    const [mail] = (await ownSmtp.waitFor(ownBefore + 1)).slice(ownBefore);
    expect(mail!.user).toBe(OWN_USER);
    expect(mail!.mail.from?.value[0]).toMatchObject({ name: "Own sender_own", address: OWN_USER });
    expect(serverSmtp.received.length).toBe(serverBefore);
    expect((await t.call("GET", "/api/user/smtp/info", { token: u.token })).body).toMatchObject({ code: 200, data: { emailAccount: OWN_USER, configured: true } });
  });

  it("without the user's own account refuses with 4135 (reason own-account-not-set); the server's account is not used in its place", async () => {
    const u = await owner("sender_own_unset", 2);
    const serverBefore = serverSmtp.received.length;
    const refused = await share(u.token, { shareEmail: "friend@example.net" });
    expect(refused.body).toMatchObject({ code: 4135, data: { reason: "own-account-not-set" } });
    expect(await t.engine.services.shareMailer.canSend(u.id)).toBe(false);
    expect((await t.call("GET", "/api/user/smtp/info", { token: u.token })).body).toMatchObject({ code: 200, data: { configured: false } });
    expect(serverSmtp.received.length).toBe(serverBefore);
  });
});
