import type { ZhMessages } from "../plural";

/** Email setting (admin console): the server's mail account and the test mail. */
export const adminEmailEn = {
  "admin.email.title": "Email setting",
  "admin.email.account.title": "Server mail account",
  "admin.email.account.intro":
    "Notifications by e-mail, the share mails of users whose e-mail source is the server, and the administrator's transfer notices go out through this account.",
  "admin.email.save": "Save",
  "admin.email.saved": "The mail account was saved.",
  "admin.email.test.title": "Send test mail",
  "admin.email.test.hint": "The test mail goes out through the saved settings: save your changes first.",
  "admin.email.test.not-saved": "Save the mail account before sending a test mail.",
  "admin.email.test.to": "Send to",
  "admin.email.test.to.invalid": "Enter an e-mail address",
  "admin.email.test.send": "Send test mail",
  "admin.email.test.ok": "The mail server accepted the test mail to {{to}}. Its answer: {{response}}",
} as const;

export const adminEmailZh: ZhMessages<typeof adminEmailEn> = {
  "admin.email.title": "邮箱设置",
  "admin.email.account.title": "服务器发件邮箱",
  "admin.email.account.intro": "邮件通知、发件方式为服务器邮箱的用户的分享邮件，以及发给管理员的传输通知，都通过此邮箱发送。",
  "admin.email.save": "保存",
  "admin.email.saved": "发件邮箱已保存。",
  "admin.email.test.title": "发送测试邮件",
  "admin.email.test.hint": "测试邮件使用已保存的设置发送：请先保存修改。",
  "admin.email.test.not-saved": "请先保存发件邮箱，再发送测试邮件。",
  "admin.email.test.to": "收件地址",
  "admin.email.test.to.invalid": "请输入邮箱地址",
  "admin.email.test.send": "发送测试邮件",
  "admin.email.test.ok": "邮件服务器已接收发往 {{to}} 的测试邮件。服务器应答：{{response}}",
};
