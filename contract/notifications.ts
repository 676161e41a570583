import * as z from "zod";
import { NAME_FORMAT_MESSAGE, nameProblem } from "./validation";

/*
 * The administrator's notifications (admin document sections 3 "Notification" and 5): compose,
 * the sent list with read counts and e-mail delivery, delete. docs/admin-api.md, "Notifications";
 * the mails: docs/mail.md, "Notifications by e-mail".
 */

/** How a notification reaches its receivers (the spec's "option"): the users' notification page, e-mail, or both. */
export const NOTICE_WAYS = ["website", "email"] as const;
export type NoticeWay = (typeof NOTICE_WAYS)[number];

/** One receiver's e-mail: not by mail, waiting, sent (the server accepted it), failed, no address to send to. */
export const NOTICE_MAIL_STATUS = { none: 0, queued: 1, sent: 2, failed: 3, noAddress: 4 } as const;
export const NOTICE_MAIL_STATUS_NAMES = ["none", "queued", "sent", "failed", "no-address"] as const;
export type NoticeMailStatusName = (typeof NOTICE_MAIL_STATUS_NAMES)[number];

export const NOTICE_TITLE_MAX = 255;
export const NOTICE_CONTENT_MAX = 20_000;
export const NOTICE_RECEIVERS_MAX = 100_000;

/**
 * POST /api/admin/notices. The spec's rules are the engine's: an empty `way` is refused with 4440, an
 * empty `receivers` with 4441, "email" without the server's mail account with 4442.
 */
export const sendNoticeBody = z
  .object({
    title: z.string().trim().min(1).max(NOTICE_TITLE_MAX).refine((n) => nameProblem(n) === null, NAME_FORMAT_MESSAGE).describe("Subject."),
    content: z.string().min(1).max(NOTICE_CONTENT_MAX).describe("Text; line breaks are kept."),
    receivers: z
      .union([z.literal("all"), z.array(z.number().int().positive()).max(NOTICE_RECEIVERS_MAX)])
      .describe('User ids, or "all" (every user). An empty list is refused with 4441.'),
    way: z
      .array(z.enum(NOTICE_WAYS))
      .max(2)
      .describe('"website" (the users\' notification page) and/or "email" (to each receiver with an address, through the server\'s mail account). Empty: 4440.'),
  })
  .strict();
export type SendNoticeBody = z.infer<typeof sendNoticeBody>;

const mailCounts = z
  .object({
    queued: z.number().int(),
    sent: z.number().int(),
    failed: z.number().int(),
    noAddress: z.number().int(),
  })
  .describe("Receivers by e-mail state (all 0 when the notification was not sent by e-mail).");

export const adminNotice = z.object({
  id: z.number().int(),
  title: z.string(),
  content: z.string(),
  createTime: z.number().int().describe("Unix seconds."),
  way: z.array(z.enum(NOTICE_WAYS)),
  receivers: z.number().int().describe("How many users it was sent to."),
  receiverAccounts: z.array(z.string()).describe("The first receivers' accounts (at most 5, by account)."),
  read: z.number().int().describe("How many of them have read it on the website."),
  mail: mailCounts,
});
export type AdminNotice = z.infer<typeof adminNotice>;

/** GET /api/admin/notices: orderBy title (case-insensitive), createTime, receivers, read; ties by id. Without: newest first. */
export const NOTICE_ORDER_BY = ["title", "createTime", "receivers", "read"] as const;
export const noticeAdminListQuery = z
  .object({
    pageNum: z.coerce.number().int().min(1).default(1),
    pageSize: z.coerce.number().int().min(1).max(100).default(10),
    search: z.string().max(64).optional().describe("Part of the subject or the content, case-insensitive."),
    orderBy: z.enum(NOTICE_ORDER_BY).optional(),
    order: z.enum(["asc", "desc"]).default("asc"),
  })
  .strict();

/** POST /api/admin/notices/delete: several at once; unknown ids are ignored. */
export const noticeIdsBody = z.object({ ids: z.array(z.number().int().positive()).min(1).max(1000) }).strict();
export const noticeDeletedData = z.object({ deleted: z.number().int() });

/** GET /api/admin/notices/:id/receivers: one page of a notification's receivers. */
export const noticeReceiversQuery = z
  .object({
    pageNum: z.coerce.number().int().min(1).default(1),
    pageSize: z.coerce.number().int().min(1).max(100).default(10),
  })
  .strict();
export const noticeReceiver = z.object({
  userId: z.number().int(),
  account: z.string(),
  email: z.string(),
  read: z.boolean(),
  mail: z.enum(NOTICE_MAIL_STATUS_NAMES),
  mailError: z.string().describe("What the mail server (or the connection) answered when the mail failed; empty otherwise."),
});
export type NoticeReceiver = z.infer<typeof noticeReceiver>;

/** POST /api/admin/settings/mail/test: a test mail through the saved server account. */
export const mailTestBody = z
  .object({
    to: z.string().trim().max(255).optional().describe("Address to send to; absent or empty: the administrator's e-mail address."),
    language: z.enum(["en", "zh"]).default("en").describe("Language of the test mail's text."),
  })
  .strict();
export const mailTestData = z.object({
  to: z.string(),
  response: z.string().describe("The mail server's answer to the message, e.g. \"250 2.0.0 Ok: queued as …\"."),
  messageId: z.string(),
});
export type MailTestData = z.infer<typeof mailTestData>;
