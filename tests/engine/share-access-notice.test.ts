import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { PERMISSION_FULL } from "../../contract/permissions";
import { codec, startTestEngine, type TestEngine } from "../support/engine";
import { connectVisitor, makeLink, SHARE_BASE, SHARE_ENV, shareTokenOf, writeTree } from "../support/share-visitor";
import { startTestSmtp, type TestSmtp } from "../support/smtp";
import { blake3Hex, tusClient } from "../support/tus-client";

/**
 * A visitor's committed upload sends the owner's upload notice (real SMTP server), once per file,
 * naming the visitor's address: behind a trusted proxy the forwarded one (FERRY_TRUSTED_PROXIES).
 */
vi.setConfig({ testTimeout: 90_000, hookTimeout: 120_000 });

const SMTP_USER = "relay@example.com";
const SMTP_PASS = "Relay#Pass-77";
let t: TestEngine;
let smtp: TestSmtp;
beforeAll(async () => {
  t = await startTestEngine({ ...SHARE_ENV, FERRY_SMTP_ALLOW_PRIVATE: "1", FERRY_TRUSTED_PROXIES: "127.0.0.1" });
  smtp = await startTestSmtp({ user: SMTP_USER, password: SMTP_PASS, mode: "none" });
});
afterAll(async () => {
  await smtp?.close();
  await t?.stop();
});

describe("the owner's upload notice", () => {
  it("arrives after a visitor's commit, naming the file as the visitor sent it and the visitor's address, and not again for a repeated commit", async () => {
    const owner = await t.createUser("sn_owner", { permission: PERMISSION_FULL, email: "sn_owner@owner.example.org", emailSenderType: 2 });
    const saved = await t.call("POST", "/api/user/smtp/update", {
      token: owner.token,
      body: { emailFromName: "Owner", emailType: 9, emailAccount: SMTP_USER, emailPassword: codec.encode(SMTP_PASS), emailSmtpHost: smtp.host, emailSmtpPort: smtp.port, emailEncryptType: 0 },
    });
    expect(saved.body.code).toBe(200);
    await writeTree(path.join(t.dataDir, "storage", "users", "sn_owner"), { "inbox/.keep": "" });
    const link = await makeLink(t, owner.token, { shareUrlType: 0, shareServerPath: "/inbox", needPassword: true, shareUrlPasswd: "nt", notifyEmail: 1, emailLanguage: 1 });
    const token = await shareTokenOf(t, link);
    // The visitor comes through a reverse proxy on this machine (trusted), which forwards their address.
    const visitor = await connectVisitor(t.fileUrl, token, { "x-forwarded-for": "203.0.113.9" });
    const data = Buffer.from("a visitor's report");
    const tus = tusClient(t.fileUrl, token);
    const created = await tus.create({ groupId: "0", path: "/reports/q3.txt" }, data.length, data, {});
    expect(created.status).toBe(201);
    const before = smtp.received.length;
    const commit = { uploadId: created.id!, hash: await blake3Hex(data) };
    expect((await visitor.cmd("commit", commit)).data).toMatchObject({ path: "/reports/q3.txt" });
    const [notice] = (await smtp.waitFor(before + 1)).slice(before);
    expect(notice!.envelopeTo).toEqual(["sn_owner@owner.example.org"]);
    expect(notice!.mail.text).toContain(`${SHARE_BASE}/share/${link.shareId}`);
    expect(notice!.mail.text).toContain("/reports/q3.txt");
    expect(notice!.mail.text).toContain("203.0.113.9");
    // The client lost the reply and asks again: the same answer, no second notice.
    expect((await visitor.cmd("commit", commit)).data).toMatchObject({ path: "/reports/q3.txt" });
    const second = Buffer.from("second");
    const other = await tus.create({ groupId: "0", path: "/second.txt" }, second.length, second, {});
    expect((await visitor.cmd("commit", { uploadId: other.id!, hash: await blake3Hex(second) })).code).toBe(200);
    const after = await smtp.waitFor(before + 2);
    expect(after.slice(before + 1).map((m) => m.mail.text)).toEqual([expect.stringContaining("/second.txt")]);
    expect(smtp.received.length).toBe(before + 2);
    await visitor.close();
  });
});
