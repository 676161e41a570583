import { createHash } from "node:crypto";
import { sql } from "kysely";
import type { Db } from "../db/connect";
import { escapeLike } from "../db/like";
import { isUnder } from "../storage/paths";

/**
 * Content hashes of stored files (contract/files.ts HASH_ALGORITHM), per space and relative path.
 * A hash is recorded when an upload is placed and stays valid while the file keeps the size and
 * modification time it had then; anything that changed the file without telling us (a shell, rsync)
 * makes lookup answer null instead of a wrong hash. Paths are the normalised relative paths the
 * Storage driver returns ("/docs/a.txt").
 *
 * Rows are keyed by a SHA-256 of the path, not the path itself: a path may be 4096 bytes and
 * MariaDB cannot index that, and a binary key stays exact whatever collation the database uses.
 */

/** Rows written per statement: well under every dialect's limit of bound parameters. */
const BATCH = 500;

const pathKey = (path: string) => createHash("sha256").update(path, "utf8").digest("hex");


function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += BATCH) out.push(items.slice(i, i + BATCH));
  return out;
}

export interface Hashes {
  record(spaceKey: string, path: string, size: number, mtimeSeconds: number, hash: string): Promise<void>;
  /** record() of many files in one transaction (a batch's group of uploads); a path given twice keeps its last row. */
  recordMany(rows: readonly { spaceKey: string; path: string; size: number; mtime: number; hash: string }[]): Promise<void>;
  /** The recorded hash, or null when none is known or the file's size or time changed since. */
  lookup(spaceKey: string, path: string, size: number, mtimeSeconds: number): Promise<string | null>;
  /** After a rename or move: `from` and everything below it now live at `to`. */
  movePrefix(spaceKey: string, from: string, to: string): Promise<void>;
  /** After a removal (or before an overwrite): forgets `path` and everything below it. */
  removePrefix(spaceKey: string, path: string): Promise<void>;
}

export function createHashes(db: Db): Hashes {
  const k = db.kysely;

  /** Rows at `prefix` or below it. LIKE narrows the scan; the exact test drops what a case-insensitive collation let through. */
  async function rowsUnder(spaceKey: string, prefix: string) {
    let query = k.selectFrom("file_hashes").select(["path_key", "path", "size", "mtime", "hash"]).where("space_key", "=", spaceKey);
    if (prefix !== "/") {
      query = query.where((eb) =>
        eb.or([eb("path_key", "=", pathKey(prefix)), sql<boolean>`${sql.ref("path")} like ${`${escapeLike(prefix)}/%`} escape '!'`]),
      );
    }
    return (await query.execute()).filter((row) => isUnder(row.path, prefix));
  }

  return {
    async record(spaceKey, path, size, mtimeSeconds, hash) {
      const key = pathKey(path);
      await k.transaction().execute(async (trx) => {
        await trx.deleteFrom("file_hashes").where("space_key", "=", spaceKey).where("path_key", "=", key).execute();
        await trx.insertInto("file_hashes").values({ space_key: spaceKey, path_key: key, path, size, mtime: mtimeSeconds, hash }).execute();
      });
    },

    async recordMany(rows) {
      if (rows.length === 0) return;
      const last = new Map<string, { space_key: string; path_key: string; path: string; size: number; mtime: number; hash: string }>();
      for (const r of rows) {
        const key = pathKey(r.path);
        last.set(`${r.spaceKey}\0${key}`, { space_key: r.spaceKey, path_key: key, path: r.path, size: r.size, mtime: r.mtime, hash: r.hash });
      }
      const bySpace = new Map<string, (typeof last extends Map<string, infer V> ? V : never)[]>();
      for (const row of last.values()) {
        const list = bySpace.get(row.space_key);
        if (list) list.push(row);
        else bySpace.set(row.space_key, [row]);
      }
      await k.transaction().execute(async (trx) => {
        for (const [spaceKey, spaceRows] of bySpace) {
          for (const batch of chunks(spaceRows)) {
            await trx.deleteFrom("file_hashes").where("space_key", "=", spaceKey).where("path_key", "in", batch.map((r) => r.path_key)).execute();
            await trx.insertInto("file_hashes").values(batch).execute();
          }
        }
      });
    },

    async lookup(spaceKey, path, size, mtimeSeconds) {
      const row = await k
        .selectFrom("file_hashes")
        .select(["path", "size", "mtime", "hash"])
        .where("space_key", "=", spaceKey)
        .where("path_key", "=", pathKey(path))
        .executeTakeFirst();
      if (!row || row.path !== path || Number(row.size) !== size || Number(row.mtime) !== mtimeSeconds) return null;
      return row.hash;
    },

    async movePrefix(spaceKey, from, to) {
      if (from === to) return;
      const rows = await rowsUnder(spaceKey, from);
      if (rows.length === 0) return;
      const moved = rows.map((row) => {
        const path = to + (from === "/" ? row.path : row.path.slice(from.length));
        return { space_key: spaceKey, path_key: pathKey(path), path, size: row.size, mtime: row.mtime, hash: row.hash };
      });
      await k.transaction().execute(async (trx) => {
        for (const batch of chunks(rows)) {
          await trx.deleteFrom("file_hashes").where("space_key", "=", spaceKey).where("path_key", "in", batch.map((r) => r.path_key)).execute();
        }
        // A merge may land on paths that had hashes of their own; the moved files replace them.
        for (const batch of chunks(moved)) {
          await trx.deleteFrom("file_hashes").where("space_key", "=", spaceKey).where("path_key", "in", batch.map((r) => r.path_key)).execute();
          await trx.insertInto("file_hashes").values(batch).execute();
        }
      });
    },

    async removePrefix(spaceKey, path) {
      const rows = await rowsUnder(spaceKey, path);
      for (const batch of chunks(rows)) {
        await k.deleteFrom("file_hashes").where("space_key", "=", spaceKey).where("path_key", "in", batch.map((r) => r.path_key)).execute();
      }
    },
  };
}
