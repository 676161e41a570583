import { type RawBuilder, type SelectQueryBuilder, sql } from "kysely";
import {
  csvCell,
  HOUR_MS,
  STATISTICS_CSV_COLUMNS,
  STATISTICS_CSV_MAX_ROWS,
  STATISTICS_MAX_RANGE_MS,
  type StatisticsExportQuery,
  type StatisticsQuery,
  type StatisticsReport,
  type StatisticsRow,
  type StatisticsSums,
} from "../../contract/statistics";
import { escapeLike } from "../db/like";
import type { Clock } from "../clock";
import type { Db } from "../db/connect";
import type { Database } from "../db/schema";
import { fail } from "../errors";
import type { Settings } from "../settings/service";
import { daysOf } from "./days";

/*
 * Transfer statistics (docs/admin-api.md, "Statistics"): sums of the transfer log (server/logs/)
 * per user, per group space and per calendar day, all in SQL (GROUP BY), the same query on SQLite,
 * PostgreSQL and MariaDB. Byte sums come back as numbers, bigint strings or decimals depending on the
 * driver; Number() reads each.
 */

type Filter = Pick<StatisticsExportQuery, "from" | "to" | "tz" | "direction">;
type Range = { from: number; to: number; periodHours: number };
type Q = SelectQueryBuilder<Database & { t: Database["transfer_log"] }, "t", object>;

const upload = sql`t.direction = 'upload'`;
const download = sql`t.direction = 'download'`;
const sumIf = (when: RawBuilder<unknown>, value: RawBuilder<unknown>) => sql<string | number>`sum(case when ${when} then ${value} else 0 end)`;
const bytes = sql`t.bytes`;
const files = sql`t.files`;
const one = sql`1`;

/** The sums of a statistics row, as selections (names match contract/statistics.ts). */
function sums<T extends Q>(q: T) {
  return q.select([
    sumIf(upload, bytes).as("uploadBytes"),
    sumIf(upload, one).as("uploads"),
    sumIf(upload, files).as("uploadFiles"),
    sumIf(download, bytes).as("downloadBytes"),
    sumIf(download, one).as("downloads"),
    sumIf(download, files).as("downloadFiles"),
    sumIf(sql`t.result <> 'ok'`, one).as("failed"),
  ]);
}

type SumRow = { [K in keyof StatisticsSums]: string | number | bigint | null };
const sumsOf = (row: SumRow | undefined): StatisticsSums => ({
  uploadBytes: Number(row?.uploadBytes ?? 0),
  uploads: Number(row?.uploads ?? 0),
  uploadFiles: Number(row?.uploadFiles ?? 0),
  downloadBytes: Number(row?.downloadBytes ?? 0),
  downloads: Number(row?.downloads ?? 0),
  downloadFiles: Number(row?.downloadFiles ?? 0),
  failed: Number(row?.failed ?? 0),
});

/** The ORDER BY of a list: a sum's alias (as selected), or the name; ties by the name. */
const orderExpression: Record<StatisticsQuery["orderBy"], RawBuilder<unknown>> = {
  name: sql`name`,
  uploadBytes: sumIf(upload, bytes),
  downloadBytes: sumIf(download, bytes),
  totalBytes: sql`sum(t.bytes)`,
  uploads: sumIf(upload, one),
  downloads: sumIf(download, one),
  transfers: sql`count(*)`,
};

export function createStatistics({ db, clock, settings }: { db: Db; clock: Clock; settings: Settings }) {
  const k = db.kysely;

  /** The range asked for, or the last statistics period; a range past the cap or backwards is refused (400). */
  async function rangeOf(query: Filter): Promise<Range> {
    const { periodHours } = await settings.get("statistics");
    // "Now" is inside the default range: its end is exclusive.
    const to = query.to ?? clock.now() + 1;
    const from = query.from ?? to - periodHours * HOUR_MS;
    if (from >= to) fail("ParameterError", { issues: [{ path: "from", message: "must be before to" }] });
    if (to - from > STATISTICS_MAX_RANGE_MS) fail("ParameterError", { issues: [{ path: "from", message: `the range may span at most ${STATISTICS_MAX_RANGE_MS / 24 / HOUR_MS} days` }] });
    return { from, to, periodHours };
  }

  /** The log's rows in the range (and the direction, when one is asked for). */
  function rows(range: Range, direction: Filter["direction"]) {
    let q = k.selectFrom("transfer_log as t").where("t.at", ">=", range.from).where("t.at", "<", range.to);
    if (direction) q = q.where("t.direction", "=", direction);
    return q;
  }

  const userName = sql<string>`t.account`;
  const groupName = sql<string | null>`g.name`;

  /** One page of per-user or per-group sums and their row count. */
  async function list(range: Range, query: StatisticsQuery, by: "user" | "group", offset: number, limit: number) {
    const pattern = query.search ? `%${escapeLike(query.search.toLowerCase())}%` : null;
    const base = () => {
      if (by === "user") {
        let q = rows(range, query.direction);
        if (pattern) q = q.where(sql<boolean>`lower(t.account) like ${pattern} escape '!'`);
        return q.groupBy("t.account");
      }
      let q = rows(range, query.direction).leftJoin("user_groups as g", "g.id", "t.group_id").where("t.group_id", "is not", null);
      if (pattern) q = q.where(sql<boolean>`lower(g.name) like ${pattern} escape '!'`);
      return q.groupBy(["t.group_id", "g.name"]);
    };
    const keys = (by === "user" ? base().select(sql<string>`t.account`.as("k")) : base().select(sql<number>`t.group_id`.as("k"))) as unknown as Q;
    const counted = await k.selectFrom(keys.as("x")).select(sql<string | number>`count(*)`.as("n")).executeTakeFirst();
    const direction = query.order === "asc" ? sql`asc` : sql`desc`;
    const order = orderExpression[query.orderBy];
    const named =
      by === "user"
        ? base().select([userName.as("name"), sql<number | null>`max(t.user_id)`.as("id")])
        : base().select([sql<string | null>`max(${groupName})`.as("name"), sql<number | null>`t.group_id`.as("id")]);
    const found = await sums(named as unknown as Q)
      .orderBy(query.orderBy === "name" ? (by === "user" ? sql`t.account ${direction}` : sql`max(g.name) ${direction}`) : sql`${order} ${direction}`)
      .orderBy(by === "user" ? sql`t.account asc` : sql`t.group_id asc`)
      .limit(limit)
      .offset(offset)
      .execute();
    const list: StatisticsRow[] = (found as Array<SumRow & { name: string | null; id: number | string | null }>).map((r) => {
      const id = r.id === null ? null : Number(r.id);
      const name = by === "user" ? (r.name ?? "") : (r.name ?? `#${id}`);
      return { key: by === "user" ? name : String(id), name, id: by === "user" && (id === null || id === 0) ? null : id, start: null, ...sumsOf(r) };
    });
    return { list, total: Number(counted?.n ?? 0) };
  }

  /** Every calendar day of the range in `tz` with its sums (days without transfers are zeros). */
  async function perDay(range: Range, query: Filter): Promise<StatisticsRow[]> {
    const days = daysOf(range.from, range.to, query.tz);
    // The days as a derived table of literals (numbers computed here): a UNION ALL every dialect reads.
    const table = sql.join(
      days.map((d, i) => sql`select ${sql.lit(i)} as i, ${sql.lit(d.start)} as s, ${sql.lit(d.end)} as e`),
      sql` union all `,
    );
    const found = days.length
      ? ((await sums(
          rows(range, query.direction)
            .innerJoin(sql<{ i: number; s: number; e: number }>`(${table})`.as("d"), (join) => join.on(sql<boolean>`t.at >= d.s and t.at < d.e`))
            .select(sql<number>`d.i`.as("day"))
            .groupBy(sql`d.i`) as unknown as Q,
        ).execute()) as Array<SumRow & { day: number | string }>)
      : [];
    const byDay = new Map(found.map((r) => [Number(r.day), r]));
    return days.map((d, i) => ({ key: d.label, name: d.label, id: null, start: d.start, ...sumsOf(byDay.get(i)) }));
  }

  async function totals(range: Range, direction: Filter["direction"]) {
    return sumsOf((await sums(rows(range, direction) as unknown as Q).executeTakeFirst()) as SumRow | undefined);
  }

  return {
    async report(query: StatisticsQuery): Promise<StatisticsReport> {
      const range = await rangeOf(query);
      const head = { from: range.from, to: range.to, tz: query.tz, groupBy: query.groupBy, periodHours: range.periodHours, totals: await totals(range, query.direction) };
      if (query.groupBy === "day") {
        const list = await perDay(range, query);
        return { ...head, list, total: list.length, size: list.length, current: 1 };
      }
      const page = await list(range, query, query.groupBy, (query.pageNum - 1) * query.pageSize, query.pageSize);
      return { ...head, ...page, size: query.pageSize, current: query.pageNum };
    },

    /**
     * The CSV export's lines (header first), produced a page at a time so a long list is never held
     * whole; at most STATISTICS_CSV_MAX_ROWS rows, then a last line that says the export stopped.
     * The range is checked before the first line, so a bad one is an error answer, not a broken file.
     */
    async exportCsv(query: StatisticsExportQuery): Promise<AsyncIterable<string>> {
      const range = await rangeOf(query);
      const line = (row: StatisticsRow) => `${STATISTICS_CSV_COLUMNS.map((c) => csvCell(row[c])).join(",")}\r\n`;
      async function* lines() {
        yield `${STATISTICS_CSV_COLUMNS.join(",")}\r\n`;
        if (query.groupBy === "day") {
          for (const row of await perDay(range, query)) yield line(row);
          return;
        }
        const pageSize = 1000;
        for (let offset = 0; offset < STATISTICS_CSV_MAX_ROWS; offset += pageSize) {
          const page = await list(range, { ...query, pageNum: 1, pageSize }, query.groupBy, offset, Math.min(pageSize, STATISTICS_CSV_MAX_ROWS - offset));
          for (const row of page.list) yield line(row);
          if (page.list.length < pageSize) return;
          if (offset + pageSize >= STATISTICS_CSV_MAX_ROWS && page.total > STATISTICS_CSV_MAX_ROWS) yield `# truncated at ${STATISTICS_CSV_MAX_ROWS} rows of ${page.total}\r\n`;
        }
      }
      return lines();
    },
  };
}

export type Statistics = ReturnType<typeof createStatistics>;
