import { type Clock, toSeconds } from "../clock";
import { type Db, insertReturningId } from "../db/connect";
import { fail } from "../errors";

/**
 * notices.channel: 0 a notice the administrator sent (the console's Notifications list), 2 the
 * engine's transfer notice to the administrator (server/notices/transfers.ts; not in that list).
 */
export const NOTICE_CHANNEL = { sent: 0, transfer: 2 } as const;

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
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("user_id", "=", userId)
      .where("is_showed", "=", 0)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  };

  return {
    unreadCount,

    /** Calls `listener` after each change with the users concerned; returns the way to stop. */
    onChange(listener: NoticeListener): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    /** GET /api/notice/list: the caller's own notices, newest first. */
    async list(userId: number, pageNum: number, pageSize: number) {
      const base = k.selectFrom("notice_receipts").innerJoin("notices", "notices.id", "notice_receipts.notice_id").where("notice_receipts.user_id", "=", userId);
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

    async send(input: { title: string; content: string; receivers: "all" | number[]; channel?: number }) {
      const ids =
        input.receivers === "all"
          ? (await k.selectFrom("users").select("id").where("role", "=", "user").execute()).map((r) => r.id)
          : [...new Set(input.receivers)];
      if (input.receivers !== "all") {
        const found = await k.selectFrom("users").select("id").where("id", "in", ids).execute();
        if (found.length !== ids.length) fail("UserNotFound");
      }
      if (ids.length === 0) fail("UserNotFound");
      const sent = await k.transaction().execute(async (tx) => {
        const now = clock.now();
        const id = await insertReturningId({ ...db, kysely: tx }, "notices", { title: input.title, content: input.content, channel: input.channel ?? NOTICE_CHANNEL.sent, created_at: now });
        for (let i = 0; i < ids.length; i += 500) {
          await tx.insertInto("notice_receipts").values(ids.slice(i, i + 500).map((user_id) => ({ notice_id: id, user_id, is_showed: 0 }))).execute();
        }
        return { id, title: input.title, content: input.content, createTime: toSeconds(now), receivers: ids.length, read: 0 };
      });
      changed(ids);
      return sent;
    },

    /** The administrator's sent notices (channel 0); the engine's transfer notices are the administrator's own inbox. */
    async adminList(pageNum: number, pageSize: number) {
      const { total } = await k.selectFrom("notices").select((eb) => eb.fn.countAll<number>().as("total")).where("channel", "=", NOTICE_CHANNEL.sent).executeTakeFirstOrThrow();
      const rows = await k
        .selectFrom("notices")
        .where("notices.channel", "=", NOTICE_CHANNEL.sent)
        .leftJoin("notice_receipts", "notice_receipts.notice_id", "notices.id")
        .select(["notices.id", "notices.title", "notices.content", "notices.created_at"])
        .select((eb) => [eb.fn.count<number>("notice_receipts.user_id").as("receivers"), eb.fn.sum<number>("notice_receipts.is_showed").as("read")])
        .groupBy(["notices.id", "notices.title", "notices.content", "notices.created_at"])
        .orderBy("notices.created_at", "desc")
        .orderBy("notices.id", "desc")
        .limit(pageSize)
        .offset((pageNum - 1) * pageSize)
        .execute();
      const list = rows.map((r) => ({
        id: r.id,
        title: r.title,
        content: r.content,
        createTime: toSeconds(r.created_at),
        receivers: Number(r.receivers),
        read: Number(r.read ?? 0),
      }));
      return { list, total: Number(total), size: pageSize, current: pageNum };
    },

    async remove(id: number) {
      const unread = (await k.selectFrom("notice_receipts").select("user_id").where("notice_id", "=", id).where("is_showed", "=", 0).execute()).map((r) => r.user_id);
      const result = await k.deleteFrom("notices").where("id", "=", id).executeTakeFirst();
      if (Number(result.numDeletedRows) === 0) fail("NoticeNotFound");
      changed(unread);
    },
  };
}

export type Notices = ReturnType<typeof createNotices>;
