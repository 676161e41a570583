import { sql } from "kysely";
import type { LiveTask, TaskListQuery, TaskPage, TaskThroughput, TransferLogDetail, TransferLogEntry, TransferLogPage, TransferLogQuery } from "../../contract/tasks";
import type { Db } from "../db/connect";
import { escapeLike } from "../db/like";
import { FerryError } from "../errors";
import type { Recorder } from "../logs/recorder";
import type { TaskRegistry } from "./registry";

/**
 * The General tasks screen's service (docs/admin-api.md, "Transfer tasks"): the live transfers of
 * this engine instance (server/tasks/registry.ts) with their accounts, a stop, the throughput, and
 * the transfer log (table transfer_log, written by server/logs/) with a detail.
 */
export function createTasks(deps: { db: Db; tasks: TaskRegistry; recorder: Recorder }) {
  const k = deps.db.kysely;

  async function accountsOf(ids: number[]): Promise<Map<number, string>> {
    const found = new Map<number, string>();
    const unique = [...new Set(ids)];
    for (let i = 0; i < unique.length; i += 500) {
      for (const u of await k.selectFrom("users").select(["id", "account"]).where("id", "in", unique.slice(i, i + 500)).execute()) found.set(Number(u.id), u.account);
    }
    return found;
  }

  const toLogEntry = (r: {
    id: number;
    at: number;
    user_id: number | null;
    account: string;
    group_id: number | null;
    direction: string;
    bytes: number;
    files: number;
    duration_ms: number;
    result: string;
    via: string;
    path: string;
    address: string;
    share_id: string | null;
  }): TransferLogEntry => ({
    id: Number(r.id),
    at: Number(r.at),
    userId: r.user_id === null ? null : Number(r.user_id),
    account: r.account,
    groupId: r.group_id === null ? 0 : Number(r.group_id),
    direction: r.direction === "upload" ? "upload" : "download",
    bytes: Number(r.bytes),
    files: Number(r.files),
    durationMs: Number(r.duration_ms),
    result: r.result === "failed" ? "failed" : r.result === "stopped" ? "stopped" : "ok",
    via: r.via,
    path: r.path,
    address: r.address,
    shareId: r.share_id,
  });

  function filteredLog(query: Omit<TransferLogQuery, "pageNum" | "pageSize" | "order">) {
    let q = k.selectFrom("transfer_log");
    if (query.user) q = q.where(sql<boolean>`lower(account) = ${query.user.trim().toLowerCase()}`);
    if (query.direction) q = q.where("direction", "=", query.direction);
    if (query.result) q = q.where("result", "=", query.result);
    if (query.from !== undefined) q = q.where("at", ">=", query.from);
    if (query.to !== undefined) q = q.where("at", "<", query.to);
    const text = query.text?.trim();
    if (text) {
      const pattern = `%${escapeLike(text.toLowerCase())}%`;
      q = q.where(sql<boolean>`(lower(account) like ${pattern} escape '!' or lower(path) like ${pattern} escape '!' or lower(address) like ${pattern} escape '!')`);
    }
    return q;
  }

  return {
    /** GET /api/admin/tasks: the live transfers, newest first, filtered and paged, with the totals of all of them. */
    async list(query: TaskListQuery): Promise<TaskPage> {
      const live = deps.tasks.list();
      const accounts = await accountsOf(live.flatMap((t) => [t.userId, t.ownerId]).filter((id): id is number => id !== null));
      const all: LiveTask[] = live
        .map((t) => ({
          id: t.id,
          direction: t.direction,
          status: t.status,
          userId: t.userId,
          account: t.userId === null ? "" : (accounts.get(t.userId) ?? ""),
          shareId: t.shareId,
          shareOwner: t.userId === null && t.ownerId !== null ? (accounts.get(t.ownerId) ?? "") : "",
          groupId: t.groupId,
          path: t.path,
          total: t.total,
          bytes: t.bytes,
          speed: Math.round(t.speed),
          address: t.address,
          via: t.via,
          zip: t.zip,
          connections: t.connections,
          startedAt: t.startedAt,
        }))
        .sort((a, b) => b.startedAt - a.startedAt || a.id.localeCompare(b.id));
      const totals = {
        uploads: all.filter((t) => t.direction === "upload").length,
        downloads: all.filter((t) => t.direction === "download").length,
        uploadSpeed: all.filter((t) => t.direction === "upload").reduce((s, t) => s + t.speed, 0),
        downloadSpeed: all.filter((t) => t.direction === "download").reduce((s, t) => s + t.speed, 0),
      };
      const search = query.search?.trim().toLowerCase();
      const matching = all.filter(
        (t) =>
          (!query.direction || t.direction === query.direction) &&
          (!search || [t.account, t.path, t.address, t.shareId ?? "", t.shareOwner].some((v) => v.toLowerCase().includes(search))),
      );
      const from = (query.pageNum - 1) * query.pageSize;
      return { list: matching.slice(from, from + query.pageSize), total: matching.length, size: query.pageSize, current: query.pageNum, totals };
    },

    /** POST /api/admin/tasks/:id/stop: 4481 when it already ended. */
    stop(id: string): null {
      if (!deps.tasks.stop(id)) throw new FerryError("TaskNotLive");
      return null;
    },

    throughput(): TaskThroughput {
      return deps.tasks.throughput();
    },

    /** GET /api/admin/logs/transfers: the transfer log by time, filtered and paged. */
    async log(query: TransferLogQuery): Promise<TransferLogPage> {
      // What just ended is in the list (the writer batches every second).
      await deps.recorder.flush();
      const counted = await filteredLog(query).select(sql<string | number>`count(*)`.as("n")).executeTakeFirst();
      const direction = query.order === "asc" ? "asc" : "desc";
      const rows = await filteredLog(query)
        .selectAll()
        .orderBy("at", direction)
        .orderBy("id", direction)
        .limit(query.pageSize)
        .offset((query.pageNum - 1) * query.pageSize)
        .execute();
      return { list: rows.map(toLogEntry), total: Number(counted?.n ?? 0), size: query.pageSize, current: query.pageNum };
    },

    /** GET /api/admin/logs/transfers/:id: one row with its group, its link's owner and the operations that go with it. */
    async logEntry(id: number): Promise<TransferLogDetail> {
      await deps.recorder.flush();
      const row = await k.selectFrom("transfer_log").selectAll().where("id", "=", id).executeTakeFirst();
      if (!row) throw new FerryError("TransferLogNotFound");
      const entry = toLogEntry(row);
      const startedAt = entry.at - entry.durationMs;
      const group = entry.groupId > 0 ? await k.selectFrom("user_groups").select("name").where("id", "=", entry.groupId).executeTakeFirst() : undefined;
      let shareOwner: string | null = null;
      if (entry.shareId) {
        const owner = await k
          .selectFrom("share_links")
          .innerJoin("users", "users.id", "share_links.owner_id")
          .select("users.account")
          .where("share_links.id", "=", entry.shareId)
          .executeTakeFirst()
          .catch(() => undefined);
        shareOwner = owner?.account ?? null;
      }
      // The operations of the same person around the transfer: its download or upload entry, a failure's code.
      let ops = k.selectFrom("operation_log").select(["id", "at", "kind", "target", "detail", "result", "code"]).where("at", ">=", startedAt - 60_000).where("at", "<=", entry.at + 60_000);
      ops = entry.userId !== null ? ops.where("user_id", "=", entry.userId) : ops.where("user_id", "is", null).where("address", "=", entry.address);
      ops = ops.where("kind", "in", entry.direction === "upload" ? ["upload", "invitation_use"] : ["download", "share_download"]);
      const first = entry.path.split(", ")[0] ?? entry.path;
      ops = ops.where(sql<boolean>`target like ${`${escapeLike(first)}%`} escape '!'`);
      const operations = (await ops.orderBy("at").orderBy("id").limit(20).execute()).map((o) => ({ id: Number(o.id), at: Number(o.at), kind: o.kind, target: o.target, detail: o.detail, result: o.result, code: Number(o.code) }));
      return {
        ...entry,
        startedAt,
        averageSpeed: entry.durationMs > 0 ? Math.round((entry.bytes * 1000) / entry.durationMs) : 0,
        groupName: group?.name ?? null,
        shareOwner,
        operations,
      };
    },
  };
}
export type Tasks = ReturnType<typeof createTasks>;
