import { expect } from "vitest";
import { codec, startTestEngine, type TestEngine } from "./engine";
import { startTestSmtp, type TestSmtp } from "./smtp";

/**
 * An engine whose transfer notices are gathered for an hour (the test sends what is gathered itself,
 * so nothing depends on timing), a real smtp-server as the server's mail account, and the
 * administrator's address set: what the notice tests need to see notices and their mails.
 */
export async function startNoticeEngine(relay: { user: string; password: string; adminEmail: string }): Promise<{ t: TestEngine; smtp: TestSmtp }> {
  const t = await startTestEngine({ FERRY_SMTP_ALLOW_PRIVATE: "1", FERRY_TRANSFER_NOTICE_WINDOW: "3600" });
  const smtp = await startTestSmtp({ user: relay.user, password: relay.password, mode: "none" });
  const admin = await t.adminToken();
  const saved = await t.call("PATCH", "/api/admin/settings/mail", {
    token: admin,
    body: { emailFromName: "Ferry Server", emailType: 9, emailAccount: relay.user, emailPassword: codec.encode(relay.password), emailSmtpHost: smtp.host, emailSmtpPort: smtp.port, emailEncryptType: 0 },
  });
  expect(saved.body.code).toBe(200);
  const adminId = (await t.call("GET", "/api/user/info", { token: admin })).body.data.user.userId as number;
  expect((await t.call("PATCH", `/api/admin/users/${adminId}`, { token: admin, body: { email: relay.adminEmail } })).body.code).toBe(200);
  return { t, smtp };
}
