import type { Db } from "../db/connect";
import { Bucket, Throttle } from "./throttle";

/**
 * Speed limits of users and group spaces, enforced on every transfer of this engine process
 * (docs/file-server.md, "Speed limits"). A user's `maxUploadSpeed` / `maxDownloadSpeed` are KB/s
 * (1 KB = 1024 bytes) and hold for all of the user's transfers together — every connection, its
 * personal space, its group spaces and the share links it owns; a group's are Mbps (10^6 bits/s)
 * and hold for all transfers in that group's space together. A transfer in a group space passes
 * both, so the lower one binds. 0 is unlimited.
 */

export type Direction = "upload" | "download";

/** Bytes per second of a user's stored limit (KB/s). */
export const userRate = (kbPerSecond: number) => kbPerSecond * 1024;
/** Bytes per second of a group's stored limit (Mbps). */
export const groupRate = (mbps: number) => (mbps * 1_000_000) / 8;

/** How often a running transfer reads its limits again, so a changed limit reaches it. */
const REFRESH_MS = 2000;

export interface Speed {
  /**
   * The throttle of a transfer of `userId`'s bytes in space `groupId` (0 = personal), or null when
   * no limit applies at its start (no per-chunk work then). Release it when the transfer ends.
   */
  throttle(userId: number, groupId: number, direction: Direction): Promise<Throttle | null>;
}

interface Limits {
  user: number;
  group: number;
}

export function createSpeed(db: Db): Speed {
  const buckets = new Map<string, Bucket>();

  /** The limits in bytes per second now; a user or group deleted meanwhile is unlimited (its transfers are stopped elsewhere). */
  async function limitsOf(userId: number, groupId: number, direction: Direction): Promise<Limits> {
    const k = db.kysely;
    const column = direction === "upload" ? "max_upload_speed" : "max_download_speed";
    const user = await k.selectFrom("users").select(column).where("id", "=", userId).executeTakeFirst();
    const group = groupId === 0 ? undefined : await k.selectFrom("user_groups").select(column).where("id", "=", groupId).executeTakeFirst();
    return { user: userRate(Number(user?.[column] ?? 0)), group: groupRate(Number(group?.[column] ?? 0)) };
  }

  function hold(key: string, rate: number): Bucket {
    let bucket = buckets.get(key);
    if (!bucket) {
      bucket = new Bucket();
      buckets.set(key, bucket);
    }
    bucket.rate = rate;
    bucket.holders++;
    return bucket;
  }

  return {
    async throttle(userId, groupId, direction) {
      const limits = await limitsOf(userId, groupId, direction);
      if (limits.user === 0 && limits.group === 0) return null;
      const keys = [`user:${userId}:${direction}`, ...(groupId === 0 ? [] : [`group:${groupId}:${direction}`])];
      const held = [hold(keys[0]!, limits.user), ...(groupId === 0 ? [] : [hold(keys[1]!, limits.group)])];
      let checkedAt = performance.now();
      let reading = false;
      const refresh = () => {
        const now = performance.now();
        if (reading || now - checkedAt < REFRESH_MS) return;
        checkedAt = now;
        reading = true;
        limitsOf(userId, groupId, direction)
          .then(
            (fresh) => {
              held[0]!.rate = fresh.user;
              if (held[1]) held[1].rate = fresh.group;
            },
            // The database away for a moment: the last limits stay.
            () => undefined,
          )
          .finally(() => (reading = false));
      };
      const release = () => {
        keys.forEach((key, i) => {
          if (--held[i]!.holders === 0) buckets.delete(key);
        });
      };
      return new Throttle(held, refresh, release);
    },
  };
}
