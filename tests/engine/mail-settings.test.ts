import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { PROVIDER_PRESETS } from "../../contract/mail";
import { codec, startTestEngine, type TestEngine } from "../support/engine";

vi.setConfig({ testTimeout: 90_000 });

let t: TestEngine;
beforeAll(async () => {
  t = await startTestEngine();
});
afterAll(() => t?.stop());

const PLAIN = "Sm7p-Secret!pw";
const settings = (over: Record<string, unknown> = {}) => ({
  emailFromName: "Alice Example",
  emailType: 9,
  emailAccount: "alice@example.com",
  emailPassword: codec.encode(PLAIN),
  emailSmtpHost: "smtp.example.com",
  emailSmtpPort: 465,
  emailEncryptType: 1,
  ...over,
});
const update = (token: string, body: unknown) => t.call("POST", "/api/user/smtp/update", { token, body });
const info = (token: string) => t.call("GET", "/api/user/smtp/info", { token });
const rowOf = (owner: string) => t.engine.services.db.kysely.selectFrom("smtp_accounts").selectAll().where("owner", "=", owner).executeTakeFirst();

describe("a user's SMTP settings", () => {
  it("start at the spec's defaults, without a password", async () => {
    const u = await t.createUser("smtp_fresh", { emailSenderType: 2 });
    const reply = await info(u.token);
    expect(reply.body.code).toBe(200);
    expect(reply.body.data).toEqual({
      emailFromName: "",
      emailType: 9,
      emailAccount: "",
      emailPassword: "",
      emailSmtpHost: PROVIDER_PRESETS[9]!.host,
      emailSmtpPort: 465,
      emailEncryptType: 1,
      hasPassword: false,
      configured: false,
    });
  });

  it("round-trip without ever returning the password, which is stored encrypted", async () => {
    const u = await t.createUser("smtp_round", { email: "round@example.org", emailSenderType: 2 });
    const saved = await update(u.token, settings());
    expect(saved.body.code).toBe(200);
    expect(saved.body.data.emailPassword).toBe("");
    const read = await info(u.token);
    expect(read.body.data).toEqual({ ...settings(), emailPassword: "", hasPassword: true, configured: true });
    expect(JSON.stringify(read.body)).not.toContain(PLAIN);
    expect(JSON.stringify(read.body)).not.toContain(codec.encode(PLAIN));

    // The row holds AES-GCM ciphertext: neither the password, its encoding nor its base64 appears in it.
    const row = (await rowOf(`user:${u.id}`))!;
    const dump = JSON.stringify(row);
    expect(dump).not.toContain(PLAIN);
    expect(dump).not.toContain(codec.encode(PLAIN));
    expect(dump).not.toContain(Buffer.from(PLAIN).toString("base64").slice(0, 12));
    expect(row.password_enc).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    // The key is outside the database: the engine secret file in the data directory.
    const keyFile = path.join(t.dataDir, "engine-secret");
    expect(existsSync(keyFile)).toBe(true);
    expect(dump).not.toContain(readFileSync(keyFile, "utf8").trim());
    // The engine itself reads it back to send.
    expect((await t.engine.services.mail.account({ kind: "user", userId: u.id }))!.password).toBe(PLAIN);

    // /api/user/info reports the sender account, so the web knows a mail account exists.
    const me = await t.call("GET", "/api/user/info", { token: u.token });
    expect(me.body.data.user.emailAccount).toBe("alice@example.com");
  });

  it("keep the stored password when an update leaves it empty, and need one the first time", async () => {
    const u = await t.createUser("smtp_keep", { emailSenderType: 2 });
    const first = await update(u.token, settings({ emailPassword: "" }));
    expect(first.body.code).toBe(4132);
    expect(first.body.data).toMatchObject({ field: "emailPassword", reason: "required" });
    expect((await info(u.token)).body.data.configured).toBe(false);

    expect((await update(u.token, settings())).body.code).toBe(200);
    const before = (await rowOf(`user:${u.id}`))!.password_enc;
    const again = await update(u.token, settings({ emailPassword: "", emailFromName: "Alice Renamed" }));
    expect(again.body.code).toBe(200);
    expect(again.body.data).toMatchObject({ emailFromName: "Alice Renamed", hasPassword: true });
    expect((await rowOf(`user:${u.id}`))!.password_enc).toBe(before);
    expect((await t.engine.services.mail.account({ kind: "user", userId: u.id }))!.password).toBe(PLAIN);

    // A new password replaces it.
    expect((await update(u.token, settings({ emailPassword: codec.encode("Other#pw2") }))).body.code).toBe(200);
    expect((await t.engine.services.mail.account({ kind: "user", userId: u.id }))!.password).toBe("Other#pw2");
  });

  it("belong to their user only", async () => {
    const a = await t.createUser("smtp_own_a", { emailSenderType: 2 });
    const b = await t.createUser("smtp_own_b", { emailSenderType: 2 });
    expect((await update(a.token, settings({ emailAccount: "a-only@example.com" }))).body.code).toBe(200);
    expect((await info(b.token)).body.data).toMatchObject({ configured: false, emailAccount: "" });
    expect((await info(a.token)).body.data).toMatchObject({ configured: true, emailAccount: "a-only@example.com" });
    expect((await t.call("GET", "/api/user/smtp/info")).body.code).toBe(1009);
    expect((await t.call("POST", "/api/user/smtp/update", { body: settings() })).body.code).toBe(1009);
  });

  it("go with their user when the user is deleted", async () => {
    const u = await t.createUser("smtp_gone", { emailSenderType: 2 });
    expect((await update(u.token, settings())).body.code).toBe(200);
    expect(await rowOf(`user:${u.id}`)).toBeTruthy();
    expect((await t.call("DELETE", `/api/admin/users/${u.id}`, { token: await t.adminToken() })).body.code).toBe(200);
    expect(await rowOf(`user:${u.id}`)).toBeUndefined();
  });
});

describe("SMTP settings validation", () => {
  let token: string;
  beforeAll(async () => {
    token = (await t.createUser("smtp_rules", { emailSenderType: 2 })).token;
  });

  it.each([
    ["account not an address", { emailAccount: "not-an-address" }, 4131, "emailAccount"],
    ["account empty", { emailAccount: "" }, 4131, "emailAccount"],
    ["password not encoded", { emailPassword: "plain text!" }, 4132, "emailPassword"],
    ["host with a space", { emailSmtpHost: "smtp example.com" }, 4133, "emailSmtpHost"],
    ["host empty", { emailSmtpHost: "" }, 4133, "emailSmtpHost"],
    ["host with CR/LF", { emailSmtpHost: "smtp.example.com\r\nRCPT TO:<x@y.z>" }, 4133, "emailSmtpHost"],
    ["port 0", { emailSmtpPort: 0 }, 4134, "emailSmtpPort"],
    ["port 70000", { emailSmtpPort: 70000 }, 4134, "emailSmtpPort"],
    ["from-name empty", { emailFromName: "  " }, 400, "emailFromName"],
    ["from-name with CR/LF", { emailFromName: "Alice\r\nBcc: victim@example.com" }, 400, "emailFromName"],
    ["from-name too long", { emailFromName: "x".repeat(65) }, 400, "emailFromName"],
    ["unknown provider", { emailType: 10 }, 400, "emailType"],
    ["unknown encryption", { emailEncryptType: 3 }, 400, "emailEncryptType"],
  ])("refuses %s", async (_name, over, code, field) => {
    const reply = await update(token, settings(over));
    expect(reply.body.code).toBe(code);
    expect(reply.body.data.field).toBe(field);
    expect((await info(token)).body.data.configured).toBe(false);
  });

  it("refuses a missing field (401) and a wrong type (402)", async () => {
    const { emailSmtpPort: _p, ...missing } = settings();
    expect((await update(token, missing)).body.code).toBe(401);
    expect((await update(token, settings({ emailSmtpPort: "465" }))).body.code).toBe(402);
  });

  it("allows only each provider's encryptions", async () => {
    const allowed: Record<number, number[]> = { 0: [1], 1: [1], 2: [2], 3: [2], 4: [2], 5: [2], 6: [2], 7: [2], 8: [0, 1, 2], 9: [0, 1, 2] };
    for (const preset of PROVIDER_PRESETS) {
      for (const encryption of [0, 1, 2]) {
        // "Other" presets no host and no port: the user brings their own server.
        const server = { emailSmtpHost: preset.host || "smtp.qq.com", emailSmtpPort: preset.port ?? 465 };
        const reply = await update(token, settings({ emailType: preset.provider, emailEncryptType: encryption, ...server }));
        const ok = allowed[preset.provider]!.includes(encryption);
        expect({ provider: preset.name, encryption, code: reply.body.code, field: reply.body.data?.field }).toEqual({
          provider: preset.name,
          encryption,
          code: ok ? 200 : 400,
          field: ok ? undefined : "emailEncryptType",
        });
      }
    }
  });

  it("refuses loopback, private, link-local and metadata hosts without FERRY_SMTP_ALLOW_PRIVATE", async () => {
    for (const host of ["127.0.0.1", "localhost", "10.1.2.3", "192.168.1.10", "169.254.169.254", "::1", "fd00:ec2::254", "::ffff:127.0.0.1", "0.0.0.0", "metadata.google.internal"]) {
      const reply = await update(token, settings({ emailSmtpHost: host }));
      expect({ host, code: reply.body.code, reason: reply.body.data?.reason }).toEqual({ host, code: 4133, reason: "private-address" });
    }
    // A public address is accepted (nothing is connected at save time).
    expect((await update(token, settings({ emailSmtpHost: "8.8.8.8" }))).body.code).toBe(200);
  });
});

describe("the server's mail account (admin)", () => {
  it("is read and changed by the administrator only, never returning the password", async () => {
    const user = await t.createUser("smtp_not_admin", { emailSenderType: 2 });
    expect((await t.call("GET", "/api/admin/settings/mail", { token: user.token })).body.code).toBe(1008);
    expect((await t.call("PATCH", "/api/admin/settings/mail", { token: user.token, body: settings() })).body.code).toBe(1008);

    const admin = await t.adminToken();
    const saved = await t.call("PATCH", "/api/admin/settings/mail", {
      token: admin,
      body: settings({ emailFromName: "Ferry Server", emailAccount: "noreply@example.com", emailType: 0, emailSmtpHost: "smtp.gmail.com", emailSmtpPort: 465, emailEncryptType: 1 }),
    });
    expect(saved.body.code).toBe(200);
    const read = await t.call("GET", "/api/admin/settings/mail", { token: admin });
    expect(read.body.data).toMatchObject({ emailFromName: "Ferry Server", emailAccount: "noreply@example.com", emailType: 0, emailPassword: "", hasPassword: true, configured: true });
    expect(JSON.stringify(read.body)).not.toContain(PLAIN);
    expect(JSON.stringify(await rowOf("server"))).not.toContain(PLAIN);

    // A partial PATCH keeps the other fields and the password; the same rules apply.
    expect((await t.call("PATCH", "/api/admin/settings/mail", { token: admin, body: { emailFromName: "Ferry Mailer" } })).body.code).toBe(200);
    expect((await t.engine.services.mail.account({ kind: "server" }))).toMatchObject({ fromName: "Ferry Mailer", password: PLAIN, account: "noreply@example.com" });
    expect((await t.call("PATCH", "/api/admin/settings/mail", { token: admin, body: { emailEncryptType: 2 } })).body.code).toBe(400);
    // The administrator's account may use a relay on loopback or the LAN, without FERRY_SMTP_ALLOW_PRIVATE
    // (a user's own account may not: the test above).
    expect((await t.call("PATCH", "/api/admin/settings/mail", { token: admin, body: { emailSmtpHost: "127.0.0.1" } })).body.code).toBe(200);
    expect((await t.call("PATCH", "/api/admin/settings/mail", { token: admin, body: { emailSmtpHost: "10.1.2.3" } })).body.code).toBe(200);
    expect((await t.call("PATCH", "/api/admin/settings/mail", { token: admin, body: { unknown: 1 } })).body.code).toBe(400);

    // Clients learn that a server mail account exists from /api/service/info.
    const service = await t.call("GET", "/api/service/info", { token: user.token });
    expect(JSON.stringify(service.body.data)).toContain("noreply@example.com");

    // Ciphertext copied from another owner's row does not open: the owner is bound into it.
    expect((await update(user.token, settings())).body.code).toBe(200);
    const copied = (await rowOf(`user:${user.id}`))!.password_enc;
    await t.engine.services.db.kysely.updateTable("smtp_accounts").set({ password_enc: copied }).where("owner", "=", "server").execute();
    expect(await t.engine.services.mail.account({ kind: "server" })).toBeNull();
  });
});
