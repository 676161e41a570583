import { smtpSettingsBody, smtpSettingsInfo, smtpSettingsPatch } from "../../contract/mail";
import { mailTestBody, mailTestData } from "../../contract/notifications";
import { route } from "../http/route";
import type { Mail } from "./service";

/** The caller's own SMTP account (spec section 7) and the server's (admin "Email settings"); docs/mail.md. */
export function mailRoutes(mail: Mail) {
  return [
    route({
      method: "GET",
      url: "/api/user/smtp/info",
      tag: "mail",
      summary:
        "The caller's SMTP sender settings (the spec's defaults when none are saved). The password is never returned: emailPassword is empty, hasPassword tells whether one is stored. Only for a user whose emailSenderType is 2 (own account); otherwise 1008 with data.reason \"email-sender-type\".",
      auth: "user",
      response: smtpSettingsInfo,
      handler: async ({ auth }) => {
        await mail.requireOwnSender(auth!.user.id);
        return mail.info({ kind: "user", userId: auth!.user.id });
      },
    }),
    route({
      method: "POST",
      url: "/api/user/smtp/update",
      tag: "mail",
      summary:
        "Save the caller's SMTP sender settings. emailPassword is credential-encoded; empty keeps the stored one. 4131 account, 4132 password, 4133 host (also a private/loopback address), 4134 port, 400 from-name, provider or an encryption the provider does not allow. Only for a user whose emailSenderType is 2 (own account); otherwise 1008 with data.reason \"email-sender-type\" and nothing is stored.",
      auth: "user",
      body: smtpSettingsBody,
      response: smtpSettingsInfo,
      handler: async ({ auth, body }) => {
        await mail.requireOwnSender(auth!.user.id);
        return mail.update({ kind: "user", userId: auth!.user.id }, body);
      },
    }),
    route({
      method: "GET",
      url: "/api/admin/settings/mail",
      tag: "admin",
      summary: "The server's mail account (admin Email settings), which the mails of users with emailSenderType 1 go out through; also the administrator's transfer notices. The password is never returned.",
      auth: "admin",
      response: smtpSettingsInfo,
      handler: () => mail.info({ kind: "server" }),
    }),
    route({
      method: "PATCH",
      url: "/api/admin/settings/mail",
      tag: "admin",
      summary:
        "Change the server's mail account: the given fields over the stored ones, then the rules of /api/user/smtp/update (emailPassword credential-encoded; empty or absent keeps it).",
      auth: "admin",
      body: smtpSettingsPatch,
      response: smtpSettingsInfo,
      handler: ({ body }) => mail.patchServer(body),
    }),
    route({
      method: "DELETE",
      url: "/api/admin/settings/mail",
      tag: "admin",
      summary: "Remove the server's mail account: notifications by e-mail (4442), share mails of sender type 1 (4135) and the test mail are refused until one is saved again. Data: the defaults.",
      auth: "admin",
      response: smtpSettingsInfo,
      handler: () => mail.removeServer(),
    }),
    route({
      method: "POST",
      url: "/api/admin/settings/mail/test",
      tag: "admin",
      summary:
        "Send a test mail through the saved server account to `to` (default: the administrator's e-mail address). Data: the mail server's answer. Refused by the server: 4443 with its reply (data.response, data.responseCode); no conversation (connection, TLS, time-out): 4444 with the error (data.reason). 4135 without a saved account, 1022 without an address.",
      auth: "admin",
      body: mailTestBody,
      response: mailTestData,
      handler: ({ body }) => mail.sendTest(body.to, body.language),
    }),
  ];
}
