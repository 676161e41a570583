import { type Clock, toSeconds } from "../clock";
import { type Db, insertReturningId } from "../db/connect";
import { sql } from "kysely";
import { NOTICE_MAIL_STATUS, NOTICE_MAIL_STATUS_NAMES, type NoticeWay } from "../../contract/notifications";
import { escapeLike } from "../db/like";
import { fail } from "../errors";

/**
 * notices.channel: 0 a notice the administrator sent (the console's Notifications list), 2 the
 * engine's transfer notice to the administrator (server/notices/transfers.ts; not in that list).
 */
export const NOTICE_CHANNEL = { sent: 0, transfer: 2 } as const;

/** How many receivers' accounts a row of the console's list names. */
const RECEIVER_ACCOUNTS_SHOWN = 5;

export type NoticeOrderBy = "title" | "createTime" | "receivers" | "read";

/** Told the users whose unread count may have changed (a notice sent, read or deleted). */
export type NoticeListener = (userIds: number[]) => void;

/**
 * Notifications: one row per notice, one receipt per receiver carrying its read flag. Listeners
 * hear of every change, so the file server can push the new unread count to the users' open
 * sockets (docs/file-server.md, "Events").
 */
export function createNotices(db: Db, clock: Clock) {
  const k = db.kysely;
  const listeners = new Set<NoticeListener>();
  const changed = (userIds: number[]) => {
    if (userIds.length === 0) return;
    for (const listener of listeners) listener(userIds);
  };
  const unreadCount = async (userId: number) => {
    const row = await k
      .selectFrom("notice_receipts")
      .innerJoin("notices", "notices.id", "notice_receipts.notice_id")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("notice_receipts.user_id", "=", userId)
      .where("notice_receipts.is_showed", "=", 0)
      .where("notices.by_website", "=", 1)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  };

  /** The console's rows of `ids` (in that order): counts of receivers, read, e-mail states, the first accounts. */
  async function adminItems(ids: number[]) {
    if (ids.length === 0) return [];
    const notices = await k.selectFrom("notices").select(["id", "title", "content", "created_at", "by_website", "by_email"]).where("id", "in", ids).execute();
    const counts = await k
      .selectFrom("notice_receipts")
      .where("notice_id", "in", ids)
      .select(["notice_id", "mail_status"])
      .select((eb) => [eb.fn.countAll<number>().as("n"), eb.fn.sum<number>("is_showed").as("read")])
      .groupBy(["notice_id", "mail_status"])
      .execute();
    const accounts = new Map<number, string[]>();
    for (const id of ids) {
      const rows = await k
        .selectFrom("notice_receipts")
        .innerJoin("users", "users.id", "notice_receipts.user_id")
        .select("users.account")
        .where("notice_receipts.notice_id", "=", id)
        .orderBy("users.account_key")
        .limit(RECEIVER_ACCOUNTS_SHOWN)
        .execute();
      accounts.set(id, rows.map((r) => r.account));
    }
    return ids.flatMap((id) => {
      const n = notices.find((r) => r.id === id);
      if (!n) return [];
      const mine = counts.filter((c) => c.notice_id === id);
      const count = (status: number) => Number(mine.find((c) => c.mail_status === status)?.n ?? 0);
      const way: NoticeWay[] = [];
      if (n.by_website) way.push("website");
      if (n.by_email) way.push("email");
      return [
        {
          id,
          title: n.title,
          content: n.content,
          createTime: toSeconds(n.created_at),
          way,
          receivers: mine.reduce((sum, c) => sum + Number(c.n), 0),
          receiverAccounts: accounts.get(id) ?? [],
          read: n.by_website ? mine.reduce((sum, c) => sum + Number(c.read ?? 0), 0) : 0,
          mail: { queued: count(NOTICE_MAIL_STATUS.queued), sent: count(NOTICE_MAIL_STATUS.sent), failed: count(NOTICE_MAIL_STATUS.failed), noAddress: count(NOTICE_MAIL_STATUS.noAddress) },
        },
      ];
    });
  }

  async function removeMany(ids: number[]): Promise<number> {
    const unique = [...new Set(ids)];
    const unread = (
      await k
        .selectFrom("notice_receipts")
        .innerJoin("notices", "notices.id", "notice_receipts.notice_id")
        .select("notice_receipts.user_id")
        .where("notice_receipts.notice_id", "in", unique)
        .where("notice_receipts.is_showed", "=", 0)
        .where("notices.by_website", "=", 1)
        .execute()
    ).map((r) => r.user_id);
    // Receipts go explicitly too: SQLite and MariaDB keep foreign-key cascades only when enforced.
    const result = await k.transaction().execute(async (tx) => {
      const owned = (await tx.selectFrom("notices").select("id").where("id", "in", unique).where("channel", "=", NOTICE_CHANNEL.sent).execute()).map((r) => r.id);
      if (owned.length === 0) return 0;
      await tx.deleteFrom("notice_receipts").where("notice_id", "in", owned).execute();
      const gone = await tx.deleteFrom("notices").where("id", "in", owned).executeTakeFirst();
      return Number(gone.numDeletedRows);
    });
    changed([...new Set(unread)]);
    return result;
  }

  return {
    unreadCount,

    /** Calls `listener` after each change with the users concerned; returns the way to stop. */
    onChange(listener: NoticeListener): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    /** GET /api/notice/list: the caller's own notices, newest first. */
    async list(userId: number, pageNum: number, pageSize: number) {
      // A notification sent by e-mail only is not on the users' page.
      const base = k
        .selectFrom("notice_receipts")
        .innerJoin("notices", "notices.id", "notice_receipts.notice_id")
        .where("notice_receipts.user_id", "=", userId)
        .where("notices.by_website", "=", 1);
      const { total } = await base.select((eb) => eb.fn.countAll<number>().as("total")).executeTakeFirstOrThrow();
      const rows = await base
        .select(["notices.id", "notices.title", "notices.content", "notices.created_at", "notice_receipts.is_showed"])
        .orderBy("notices.created_at", "desc")
        .orderBy("notices.id", "desc")
        .limit(pageSize)
        .offset((pageNum - 1) * pageSize)
        .execute();
      return {
        notic_list: rows.map((r) => ({ id: r.id, title: r.title, content: r.content, create_time: toSeconds(r.created_at), isShowed: r.is_showed === 1 })),
        total: Number(total),
        size: pageSize,
        current: pageNum,
        pages: Math.ceil(Number(total) / pageSize),
        unreadCount: await unreadCount(userId),
      };
    },

    /** PATCH /api/notice/status/update: marks read only receipts the caller holds; other ids are ignored. */
    async markRead(userId: number, noticeIds: number[]) {
      const result = await k
        .updateTable("notice_receipts")
        .set({ is_showed: 1 })
        .where("user_id", "=", userId)
        .where("notice_id", "in", noticeIds)
        .where("is_showed", "=", 0)
        .executeTakeFirst();
      const updated = Number(result.numUpdatedRows);
      if (updated > 0) changed([userId]);
      return { updated, unreadCount: await unreadCount(userId) };
    },

    /** PATCH /api/notice/status/read-all: every unread receipt of the caller, and no one else's. */
    async markAllRead(userId: number) {
      const result = await k.updateTable("notice_receipts").set({ is_showed: 1 }).where("user_id", "=", userId).where("is_showed", "=", 0).executeTakeFirst();
      const updated = Number(result.numUpdatedRows);
      if (updated > 0) changed([userId]);
      return { updated, unreadCount: await unreadCount(userId) };
    },

    /**
     * Makes a notice with one receipt per receiver. `way` (default website) decides where it shows:
     * website receipts count towards the users' unread numbers; e-mail receipts start queued (or
     * "no address" for a receiver without one) for the mailing (server/notices/mailing.ts).
     */
    async send(input: { title: string; content: string; receivers: "all" | number[]; channel?: number; way?: readonly NoticeWay[] }) {
      const way = input.way ?? ["website"];
      const website = way.includes("website");
      const email = way.includes("email");
      if (!website && !email) fail("NoticeWayRequired");
      if (input.receivers !== "all" && input.receivers.length === 0) fail("NoticeReceiversRequired");
      const ids =
        input.receivers === "all"
          ? (await k.selectFrom("users").select("id").where("role", "=", "user").execute()).map((r) => r.id)
          : [...new Set(input.receivers)];
      const addressed = new Set<number>();
      if (input.receivers !== "all") {
        let found = 0;
        for (let i = 0; i < ids.length; i += 500) {
          const rows = await k.selectFrom("users").select(["id", "email"]).where("id", "in", ids.slice(i, i + 500)).execute();
          found += rows.length;
          for (const r of rows) if (r.email) addressed.add(r.id);
        }
        if (found !== ids.length) fail("UserNotFound");
      } else if (email) {
        for (const r of await k.selectFrom("users").select(["id", "email"]).where("role", "=", "user").execute()) if (r.email) addressed.add(r.id);
      }
      if (ids.length === 0) fail("NoticeReceiversRequired", { reason: "no-users" });
      const mailStatus = (userId: number) => (!email ? NOTICE_MAIL_STATUS.none : addressed.has(userId) ? NOTICE_MAIL_STATUS.queued : NOTICE_MAIL_STATUS.noAddress);
      const sent = await k.transaction().execute(async (tx) => {
        const now = clock.now();
        const id = await insertReturningId({ ...db, kysely: tx }, "notices", {
          title: input.title,
          content: input.content,
          channel: input.channel ?? NOTICE_CHANNEL.sent,
          created_at: now,
          by_website: website ? 1 : 0,
          by_email: email ? 1 : 0,
        });
        for (let i = 0; i < ids.length; i += 500) {
          await tx
            .insertInto("notice_receipts")
            .values(ids.slice(i, i + 500).map((user_id) => ({ notice_id: id, user_id, is_showed: 0, mail_status: mailStatus(user_id) })))
            .execute();
        }
        return id;
      });
      if (website) changed(ids);
      return (await adminItems([sent]))[0]!;
    },

    /**
     * The administrator's sent notices (channel 0), with search over subject and content and the
     * list's order; the engine's transfer notices are the administrator's own inbox.
     */
    async adminList(page: { pageNum: number; pageSize: number; search?: string; orderBy?: NoticeOrderBy; order?: "asc" | "desc" }) {
      let query = k.selectFrom("notices").where("notices.channel", "=", NOTICE_CHANNEL.sent);
      if (page.search) {
        const pattern = `%${escapeLike(page.search.toLowerCase())}%`;
        query = query.where((eb) =>
          eb.or([sql<boolean>`lower(${sql.ref("notices.title")}) like ${pattern} escape '!'`, sql<boolean>`lower(${sql.ref("notices.content")}) like ${pattern} escape '!'`]),
        );
      }
      const { total } = await query.select((eb) => eb.fn.countAll<number>().as("total")).executeTakeFirstOrThrow();
      const dir = page.orderBy ? page.order ?? "asc" : "desc";
      const receiptCount = (onlyRead: boolean) =>
        sql`(select count(*) from ${sql.table("notice_receipts")} where ${sql.ref("notice_receipts.notice_id")} = ${sql.ref("notices.id")}${onlyRead ? sql` and ${sql.ref("notice_receipts.is_showed")} = 1` : sql``})`;
      let sorted = query.select("notices.id");
      if (page.orderBy === "title") sorted = sorted.orderBy(sql`lower(${sql.ref("notices.title")})`, dir);
      else if (page.orderBy === "receivers") sorted = sorted.orderBy(receiptCount(false), dir);
      else if (page.orderBy === "read") sorted = sorted.orderBy(receiptCount(true), dir);
      else sorted = sorted.orderBy("notices.created_at", dir);
      const rows = await sorted.orderBy("notices.id", dir).limit(page.pageSize).offset((page.pageNum - 1) * page.pageSize).execute();
      return { list: await adminItems(rows.map((r) => r.id)), total: Number(total), size: page.pageSize, current: page.pageNum };
    },

    /** One page of a notice's receivers: account, address, read, e-mail state and the server's answer of a failed mail. */
    async receivers(id: number, pageNum: number, pageSize: number) {
      const notice = await k.selectFrom("notices").select("id").where("id", "=", id).where("channel", "=", NOTICE_CHANNEL.sent).executeTakeFirst();
      if (!notice) fail("NoticeNotFound");
      const base = k.selectFrom("notice_receipts").innerJoin("users", "users.id", "notice_receipts.user_id").where("notice_receipts.notice_id", "=", id);
      const { total } = await base.select((eb) => eb.fn.countAll<number>().as("total")).executeTakeFirstOrThrow();
      const rows = await base
        .select(["users.id", "users.account", "users.email", "notice_receipts.is_showed", "notice_receipts.mail_status", "notice_receipts.mail_error"])
        .orderBy("users.account_key")
        .orderBy("users.id")
        .limit(pageSize)
        .offset((pageNum - 1) * pageSize)
        .execute();
      const list = rows.map((r) => ({
        userId: r.id,
        account: r.account,
        email: r.email ?? "",
        read: r.is_showed === 1,
        mail: NOTICE_MAIL_STATUS_NAMES[r.mail_status] ?? "none",
        mailError: r.mail_error,
      }));
      return { list, total: Number(total), size: pageSize, current: pageNum };
    },

    async remove(id: number) {
      const deleted = await removeMany([id]);
      if (deleted === 0) fail("NoticeNotFound");
    },

    /** Deletes the administrator's sent notices of `ids` (unknown ids and transfer notices are left alone); how many went. */
    async removeMany(ids: number[]) {
      return { deleted: await removeMany(ids) };
    },
  };
}

export type Notices = ReturnType<typeof createNotices>;
