import type { Kysely } from "kysely";
import type { Clock } from "../clock";
import type { Db } from "../db/connect";
import type { Database } from "../db/schema";
import { FerryError } from "../errors";
import { parentOf } from "../storage/paths";
import type { StatResult, Usage } from "../storage/storage";
import type { UsageCache } from "../storage/usage";
import { rootPathOf, type Space, virtualOf } from "./spaces";

/**
 * Storage quotas (docs/file-server.md, "Quotas"): a personal space is limited by its user's
 * `quota`, a group space by its group's, in bytes, 0 = unlimited. Growth past the quota is refused
 * with QuotaExceeded (data: used, quota, needed) before anything is written: an upload at its
 * creation (declared size) and again at commit, a copy before it starts. A write that replaces a
 * file needs only the difference.
 *
 * Uploads in progress count (docs/security.md, "Quotas under concurrency"): an upload's creation
 * reserves its bytes in the database (upload_reservations), in one transaction with the check that
 * they fit next to the bytes stored and every other reservation of the space, so parallel creations
 * — on one engine or several sharing the database — cannot together pass the quota. Invitation
 * uploads reserve in the link owner's space. A reservation ends when its upload is committed (the
 * bytes are then stored), terminated, refused for a wrong hash, swept, or after RESERVATION_TTL_MS.
 * The check at commit counts what is stored and what other commits are placing, not reservations
 * (the upload's own bytes were reserved already; after a quota was lowered, the first commit that
 * fits wins). Copies count reservations too. Commits and copies running hold their bytes in memory
 * until they land, so two of them cannot both take the last room.
 */

/** The longest a reservation holds: the lifetime of an upload in the store (uploads/tus.ts). */
export const RESERVATION_TTL_MS = 24 * 60 * 60 * 1000;

const nothing = (): void => undefined;

export function createQuota(db: Db, usage: UsageCache, clock: Clock) {
  /** Bytes admitted but not yet placed, per home. */
  const reserved = new Map<string, number>();

  async function limitOf(userId: number, space: Space): Promise<number> {
    const k = db.kysely;
    const row =
      space.groupId === 0
        ? await k.selectFrom("users").select("quota").where("id", "=", userId).executeTakeFirst()
        : await k.selectFrom("user_groups").select("quota").where("id", "=", space.groupId).executeTakeFirst();
    return Number(row?.quota ?? 0);
  }

  /** The space's quota row, locked until the transaction ends (SQLite's single connection already serialises it). */
  async function lockedLimit(trx: Kysely<Database>, userId: number, space: Space): Promise<number> {
    const lock = db.dialect !== "sqlite";
    const row =
      space.groupId === 0
        ? await trx.selectFrom("users").select("quota").where("id", "=", userId).$if(lock, (q) => q.forUpdate()).executeTakeFirst()
        : await trx.selectFrom("user_groups").select("quota").where("id", "=", space.groupId).$if(lock, (q) => q.forUpdate()).executeTakeFirst();
    return Number(row?.quota ?? 0);
  }

  /** Bytes held by the space's live reservations. */
  async function reservedIn(q: Kysely<Database>, spaceKey: string): Promise<number> {
    const row = await q
      .selectFrom("upload_reservations")
      .select((eb) => eb.fn.sum<number | string | null>("bytes").as("total"))
      .where("space_key", "=", spaceKey)
      .where("expires_at", ">", clock.now())
      .executeTakeFirst();
    return Number(row?.total ?? 0);
  }

  /** A space path as a path below the storage root, the way the usage cache knows homes (a virtual directory's: its target's). */
  const inRoot = rootPathOf;
  /** Bytes written into a virtual directory land in its target, outside the home: no quota of the user's counts them (docs/storage.md). */
  const outsideQuota = (space: Space, rel: string) => virtualOf(space, rel) !== undefined;

  async function statOrNull(space: Space, rel: string): Promise<StatResult | null> {
    try {
      return await space.storage.stat(rel);
    } catch (error) {
      if (error instanceof FerryError) return null;
      throw error;
    }
  }

  /** Folders that placing a file at `rel` creates (its missing parents). */
  async function missingParents(space: Space, rel: string): Promise<number> {
    let missing = 0;
    for (let dir = parentOf(rel); dir !== "/" && !(await statOrNull(space, dir)); dir = parentOf(dir)) missing++;
    return missing;
  }

  /**
   * Refuses `growth` more bytes past `quota`, counting what is stored, what commits and copies
   * running hold and, with `reservations`, what uploads in progress hold; holds the bytes until the
   * returned release.
   */
  async function admit(space: Space, quota: number, growth: number, reservations: boolean): Promise<() => void> {
    if (quota === 0 || growth <= 0) return nothing;
    const { size: used } = await usage.get(space.location);
    const held = reservations ? await reservedIn(db.kysely, space.key) : 0;
    const pending = reserved.get(space.location) ?? 0;
    if (used + held + pending + growth > quota) throw new FerryError("QuotaExceeded", { used: used + held + pending, quota, needed: growth });
    reserved.set(space.location, pending + growth);
    let holding = true;
    return () => {
      if (!holding) return;
      holding = false;
      const left = (reserved.get(space.location) ?? 0) - growth;
      if (left > 0) reserved.set(space.location, left);
      else reserved.delete(space.location);
    };
  }

  /** The file a write of `rel` would replace (overwrite), which frees its bytes. */
  const replacedSize = (existing: StatResult | null) => (existing?.type === "file" ? existing.size : 0);

  return {
    limitOf,

    /**
     * The space's quota (0 = none) and the bytes counted against it now: stored, reserved by uploads
     * in progress and held by commits and copies running (the `uploadRules` command; docs/file-server.md).
     */
    async usageOf(userId: number, space: Space): Promise<{ quota: number; used: number }> {
      const quota = await limitOf(userId, space);
      const { size } = await usage.get(space.location);
      return { quota, used: size + (await reservedIn(db.kysely, space.key)) + (reserved.get(space.location) ?? 0) };
    },

    /**
     * An upload's creation: reserves what a file of `size` bytes at `rel` adds to the space, or
     * refuses it (QuotaExceeded) when that does not fit next to what is stored and reserved. Spaces
     * without a quota reserve too, so that a quota set later counts the uploads already under way.
     */
    async reserveUpload(uploadId: string, userId: number, space: Space, rel: string, size: number, options: { overwrite: boolean }): Promise<void> {
      const existing = options.overwrite ? await statOrNull(space, rel) : null;
      const growth = outsideQuota(space, rel) ? 0 : Math.max(0, size - replacedSize(existing));
      // Counting a home can take a while: done before the transaction, which holds the quota row.
      const stored = async () => (await usage.get(space.location)).size;
      let used = growth > 0 && (await limitOf(userId, space)) > 0 ? await stored() : null;
      const now = clock.now();
      await db.kysely.transaction().execute(async (trx) => {
        const quota = await lockedLimit(trx, userId, space);
        if (quota > 0 && growth > 0) {
          used ??= await stored();
          const held = await reservedIn(trx, space.key);
          const pending = reserved.get(space.location) ?? 0;
          if (used + held + pending + growth > quota) throw new FerryError("QuotaExceeded", { used: used + held + pending, quota, needed: growth });
        }
        await trx
          .insertInto("upload_reservations")
          .values({ upload_id: uploadId, space_key: space.key, bytes: growth, created_at: now, expires_at: now + RESERVATION_TTL_MS })
          .execute();
      });
    },

    /**
     * reserveUpload for many files at once (a batch's group, uploads/batch.ts), in one transaction:
     * each file in order is reserved or refused (QuotaExceeded) exactly as reserveUpload would one
     * after the other, counting the files reserved before it. Answers per file null (reserved) or
     * its refusal; a database failure reserves none.
     */
    async reserveUploads(items: readonly { uploadId: string; userId: number; space: Space; rel: string; size: number; overwrite: boolean }[]): Promise<(FerryError | null)[]> {
      if (items.length === 0) return [];
      const growths: number[] = [];
      for (const item of items) {
        const existing = item.overwrite ? await statOrNull(item.space, item.rel) : null;
        growths.push(outsideQuota(item.space, item.rel) ? 0 : Math.max(0, item.size - replacedSize(existing)));
      }
      // One per space, locked in one order (personal first, then groups by id) so two batches cannot wait on each other.
      const spaces = new Map<string, { userId: number; space: Space; quota: number; used: number | null }>();
      for (const item of items) if (!spaces.has(item.space.key)) spaces.set(item.space.key, { userId: item.userId, space: item.space, quota: 0, used: null });
      const ordered = [...spaces.values()].sort((a, b) => a.space.groupId - b.space.groupId);
      // Counting a home can take a while: done before the transaction, which holds the quota rows.
      for (const entry of ordered) {
        if (items.some((item, i) => item.space.key === entry.space.key && growths[i]! > 0) && (await limitOf(entry.userId, entry.space)) > 0) entry.used = (await usage.get(entry.space.location)).size;
      }
      const now = clock.now();
      return db.kysely.transaction().execute(async (trx) => {
        const held = new Map<string, number>();
        for (const entry of ordered) {
          entry.quota = await lockedLimit(trx, entry.userId, entry.space);
          if (entry.quota > 0) {
            entry.used ??= (await usage.get(entry.space.location)).size;
            held.set(entry.space.key, await reservedIn(trx, entry.space.key));
          }
        }
        const answers: (FerryError | null)[] = [];
        const rows: { upload_id: string; space_key: string; bytes: number; created_at: number; expires_at: number }[] = [];
        items.forEach((item, i) => {
          const entry = spaces.get(item.space.key)!;
          const growth = growths[i]!;
          if (entry.quota > 0 && growth > 0) {
            const taken = (entry.used ?? 0) + held.get(item.space.key)! + (reserved.get(item.space.location) ?? 0);
            if (taken + growth > entry.quota) {
              answers.push(new FerryError("QuotaExceeded", { used: taken, quota: entry.quota, needed: growth }));
              return;
            }
            held.set(item.space.key, held.get(item.space.key)! + growth);
          }
          answers.push(null);
          rows.push({ upload_id: item.uploadId, space_key: item.space.key, bytes: growth, created_at: now, expires_at: now + RESERVATION_TTL_MS });
        });
        for (let i = 0; i < rows.length; i += 200) await trx.insertInto("upload_reservations").values(rows.slice(i, i + 200)).execute();
        return answers;
      });
    },

    /** Ends the reservations of these uploads (committed, terminated, dropped); unknown ids are fine. */
    async release(uploadIds: string[]): Promise<void> {
      if (uploadIds.length === 0) return;
      await db.kysely.deleteFrom("upload_reservations").where("upload_id", "in", uploadIds).execute();
    },

    /** Deletes the reservations past their time; returns how many. */
    async purgeExpired(): Promise<number> {
      const result = await db.kysely.deleteFrom("upload_reservations").where("expires_at", "<=", clock.now()).executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    /** Upload ids of the reservations made before `before` (unix ms), for the sweep to match with the uploads that still exist. */
    async reservationsBefore(before: number): Promise<string[]> {
      const rows = await db.kysely.selectFrom("upload_reservations").select("upload_id").where("created_at", "<", before).execute();
      return rows.map((r) => r.upload_id);
    },

    /**
     * Places a file of `size` bytes at `rel` through `place` (which may create its parents), after
     * the quota check, and reports the change to the usage counts. An upload's commit releases its
     * reservation itself, once the commit is recorded (a batch, once per group of files).
     */
    async placeFile<T>(userId: number, space: Space, rel: string, size: number, place: () => Promise<T>, limit?: number): Promise<T> {
      // `limit`: the space's quota as the caller read it just now (a batch reads it once a second).
      const quota = outsideQuota(space, rel) ? 0 : (limit ?? (await limitOf(userId, space)));
      const path = inRoot(space, rel);
      let delta: Usage | undefined;
      let release: () => void = nothing;
      let placing = false;
      try {
        // Without a quota and without a count to keep exact, the stats below are not worth making.
        if (quota > 0 || usage.watches(path)) {
          const existing = await statOrNull(space, rel);
          const growth = size - replacedSize(existing);
          const folders = await missingParents(space, rel);
          // Its bytes were reserved at its creation. What is checked now is what is stored: the
          // reservations stand aside, or a lowered quota would refuse every upload under way, each
          // for the others' sake; first come, first placed.
          release = await admit(space, quota, growth, false);
          placing = true;
          const result = await place();
          delta = { size: growth, files: existing ? 0 : 1, folders };
          return result;
        }
        placing = true;
        return await place();
      } finally {
        // Without a delta (no count kept, or a failure midway) the counts are dropped and redone.
        if (placing) usage.changed(path, delta);
        release();
      }
    },

    /**
     * Runs a copy of `items` within the space once their bytes fit. A folder merged into an
     * existing one (overwrite) counts in full, as which of its files replace others is not known
     * before the copy. The copied paths' counts are dropped and redone on the next read.
     */
    async copy<T>(userId: number, space: Space, items: { src: string; dest: string }[], overwrite: boolean, run: () => Promise<T>): Promise<T> {
      const quota = await limitOf(userId, space);
      let release: () => void = nothing;
      let copying = false;
      try {
        if (quota > 0) {
          let growth = 0;
          for (const { src, dest } of items) {
            if (outsideQuota(space, dest)) continue;
            // A source that is gone fails in the copy itself, item by item.
            growth += (await space.storage.usage(src).catch(() => ({ size: 0 }))).size;
            if (overwrite) growth -= replacedSize(await statOrNull(space, dest));
          }
          // A copy takes room at once, like a new upload: it cannot take what uploads hold.
          release = await admit(space, quota, growth, true);
        }
        copying = true;
        return await run();
      } finally {
        if (copying) for (const { dest } of items) usage.changed(inRoot(space, dest));
        release();
      }
    },

    /** Reports a change made in a space without a quota check (mkdir, move, remove); see UsageCache.changed. */
    changed(space: Space, rel: string, delta?: Usage): void {
      usage.changed(inRoot(space, rel), delta);
    },
  };
}

export type Quota = ReturnType<typeof createQuota>;
