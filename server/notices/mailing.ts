import { NOTICE_MAIL_STATUS, type SendNoticeBody } from "../../contract/notifications";
import type { Db } from "../db/connect";
import { fail } from "../errors";
import { noticeMail } from "../mail/admin-mails";
import type { Mail } from "../mail/service";
import type { Notices } from "./service";

type Log = { error(obj: object, msg: string): void };

/** Receivers mailed over one SMTP connection; then the next batch is read from the database. */
export const NOTICE_MAIL_BATCH = 50;

/**
 * The administrator's notifications with the spec's rules (admin document section 5: a way, the
 * server's mail account first when e-mail is chosen, receivers) and their mails: each receiver with
 * an address gets one message through the server's account, sent after the request has been
 * answered, in batches over one connection; each receipt records sent, or failed with the mail
 * server's answer (docs/mail.md, "Notifications by e-mail"). Receipts still queued when the engine
 * stops are sent when it starts again.
 */
export function createNoticeMailing(deps: { db: Db; notices: Notices; mail: Mail; log?: Log }) {
  const k = deps.db.kysely;
  const waiting: number[] = [];
  let running: Promise<void> | null = null;
  let stopped = false;
  let log = deps.log;

  async function mailNotice(noticeId: number): Promise<void> {
    const notice = await k.selectFrom("notices").select(["title", "content"]).where("id", "=", noticeId).executeTakeFirst();
    if (!notice) return;
    for (;;) {
      if (stopped) return;
      const batch = await k
        .selectFrom("notice_receipts")
        .innerJoin("users", "users.id", "notice_receipts.user_id")
        .select(["notice_receipts.user_id", "users.email"])
        .where("notice_receipts.notice_id", "=", noticeId)
        .where("notice_receipts.mail_status", "=", NOTICE_MAIL_STATUS.queued)
        .orderBy("notice_receipts.user_id")
        .limit(NOTICE_MAIL_BATCH)
        .execute();
      if (batch.length === 0) return;
      const mark = (userId: number, status: number, error = "") =>
        k.updateTable("notice_receipts").set({ mail_status: status, mail_error: error.slice(0, 255) }).where("notice_id", "=", noticeId).where("user_id", "=", userId).execute();
      const from = await deps.mail.account({ kind: "server" });
      if (!from) {
        // The account was removed (or its key lost) after the notice was sent: nothing can go out.
        for (const r of batch) await mark(r.user_id, NOTICE_MAIL_STATUS.failed, "4135 server mail account not set");
        continue;
      }
      const addressed = batch.filter((r) => r.email);
      for (const r of batch) if (!r.email) await mark(r.user_id, NOTICE_MAIL_STATUS.noAddress);
      let results: Awaited<ReturnType<Mail["sendEach"]>>;
      try {
        results = await deps.mail.sendEach(
          from,
          addressed.map((r) => noticeMail({ to: r.email!, title: notice.title, content: notice.content })),
        );
      } catch (error) {
        // A refused host (the address policy) or the like: the whole batch failed the same way.
        const text = error instanceof Error ? error.message : String(error);
        results = addressed.map(() => ({ ok: false as const, error: text }));
      }
      for (const [i, r] of addressed.entries()) {
        const result = results[i]!;
        await mark(r.user_id, result.ok ? NOTICE_MAIL_STATUS.sent : NOTICE_MAIL_STATUS.failed, result.ok ? "" : result.error);
      }
    }
  }

  function pump(): Promise<void> {
    running ??= (async () => {
      while (!stopped && waiting.length > 0) {
        const id = waiting.shift()!;
        await mailNotice(id).catch((err: unknown) => log?.error({ err, noticeId: id }, "notification mails failed"));
      }
    })().finally(() => {
      running = null;
      if (!stopped && waiting.length > 0) void pump();
    });
    return running;
  }

  const enqueue = (id: number) => {
    if (!waiting.includes(id)) waiting.push(id);
    void pump();
  };

  return {
    /** POST /api/admin/notices: the rules, the notice with its receipts, then its mails in the background. */
    async send(body: SendNoticeBody) {
      if (body.way.length === 0) fail("NoticeWayRequired");
      if (body.receivers !== "all" && body.receivers.length === 0) fail("NoticeReceiversRequired");
      if (body.way.includes("email") && !(await deps.mail.account({ kind: "server" }))) fail("NoticeMailNotConfigured", { reason: "server-account-not-set" });
      const sent = await deps.notices.send(body);
      if (sent.mail.queued > 0) enqueue(sent.id);
      return sent;
    },

    /** Picks up the receipts left queued by an engine that stopped (at start). */
    async resume(logTo?: Log) {
      log = logTo ?? log;
      const rows = await k.selectFrom("notice_receipts").select("notice_id").distinct().where("mail_status", "=", NOTICE_MAIL_STATUS.queued).orderBy("notice_id").execute();
      for (const r of rows) enqueue(r.notice_id);
    },

    /** Resolves when every queued notice has been mailed (tests; the engine's stop). */
    idle(): Promise<void> {
      return running ?? Promise.resolve();
    },

    /** Stops after the message in flight; the rest stays queued for the next start. */
    async stop() {
      stopped = true;
      await running;
    },
  };
}

export type NoticeMailing = ReturnType<typeof createNoticeMailing>;
