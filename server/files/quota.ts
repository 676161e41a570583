import type { Db } from "../db/connect";
import { FerryError } from "../errors";
import { parentOf } from "../storage/paths";
import type { StatResult, Usage } from "../storage/storage";
import type { UsageCache } from "../storage/usage";
import type { Space } from "./spaces";

/**
 * Storage quotas (docs/file-server.md, "Quotas"): a personal space is limited by its user's
 * `quota`, a group space by its group's, in bytes, 0 = unlimited. Growth past the quota is refused
 * with QuotaExceeded (data: used, quota, needed) before anything is written: an upload at its
 * creation (declared size) and again at commit, a copy before it starts. Bytes of uploads being
 * committed and copies running are reserved until they land, so two of them cannot both take the
 * last room. A write that replaces a file needs only the difference. Uploads in progress are not
 * counted: a user may send more than the room left, but only what fits can be committed.
 */

const nothing = (): void => undefined;

export function createQuota(db: Db, usage: UsageCache) {
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

  /** A space path as a path below the storage root, the way the usage cache knows homes. */
  const inRoot = (space: Space, rel: string) => (rel === "/" ? space.home : space.home === "/" ? rel : `${space.home}${rel}`);

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

  /** Refuses `growth` more bytes past `quota`; with `reserve`, holds them until the returned release. */
  async function admit(space: Space, quota: number, growth: number, reserve: boolean): Promise<() => void> {
    if (quota === 0 || growth <= 0) return nothing;
    const { size: used } = await usage.get(space.home);
    const pending = reserved.get(space.home) ?? 0;
    if (used + pending + growth > quota) throw new FerryError("QuotaExceeded", { used: used + pending, quota, needed: growth });
    if (!reserve) return nothing;
    reserved.set(space.home, pending + growth);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      const left = (reserved.get(space.home) ?? 0) - growth;
      if (left > 0) reserved.set(space.home, left);
      else reserved.delete(space.home);
    };
  }

  /** The file a write of `rel` would replace (overwrite), which frees its bytes. */
  const replacedSize = (existing: StatResult | null) => (existing?.type === "file" ? existing.size : 0);

  return {
    limitOf,

    /** An upload's creation: refuses a file of `size` bytes at `rel` that cannot fit now; reserves nothing. */
    async checkFile(userId: number, space: Space, rel: string, size: number, overwrite: boolean): Promise<void> {
      const quota = await limitOf(userId, space);
      if (quota === 0) return;
      const existing = overwrite ? await statOrNull(space, rel) : null;
      await admit(space, quota, size - replacedSize(existing), false);
    },

    /**
     * Places a file of `size` bytes at `rel` through `place` (which may create its parents), after
     * the quota check, and reports the change to the usage counts.
     */
    async placeFile<T>(userId: number, space: Space, rel: string, size: number, place: () => Promise<T>): Promise<T> {
      const quota = await limitOf(userId, space);
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
          release = await admit(space, quota, growth, true);
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
            // A source that is gone fails in the copy itself, item by item.
            growth += (await space.storage.usage(src).catch(() => ({ size: 0 }))).size;
            if (overwrite) growth -= replacedSize(await statOrNull(space, dest));
          }
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
