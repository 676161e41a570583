import { periodsAt, SPEED_DEFAULTS, type SpeedSettings } from "../../contract/settings";
import type { Clock } from "../clock";
import type { Db } from "../db/connect";
import type { Settings } from "../settings/service";
import { Bucket, Throttle } from "./throttle";

/**
 * Speed limits of users and group spaces, enforced on every transfer of this engine process
 * (docs/file-server.md, "Speed limits"). A user's `maxUploadSpeed` / `maxDownloadSpeed` are KB/s
 * (1 KB = 1024 bytes) and hold for all of the user's transfers together — every connection, its
 * personal space, its group spaces and the share links it owns; a group's are Mbps (10^6 bits/s)
 * and hold for all transfers in that group's space together. A transfer in a group space passes
 * both, so the lower one binds. 0 is unlimited.
 *
 * On top of both, the server-wide limit of the transfer settings (KB/s) holds for every transfer of
 * the process together, per direction; while a speed period applies (its days, start ≤ now < end on
 * the clock of `timeZone`), its speeds replace the server-wide max speeds (docs/file-server.md,
 * "Speed periods"). While any transfer runs, the server-wide limits are worked out again every
 * second from the engine's clock (so a period begins and ends within a second of its minute, also
 * for transfers already running) and at once when the administrator changes them.
 */

export type Direction = "upload" | "download";

/** Bytes per second of a user's stored limit (KB/s). */
export const userRate = (kbPerSecond: number) => kbPerSecond * 1024;
/** Bytes per second of a group's stored limit (Mbps). */
export const groupRate = (mbps: number) => (mbps * 1_000_000) / 8;

/** How often a running transfer reads its limits again, so a changed limit reaches it. */
const REFRESH_MS = 2000;
/** How often the server-wide limits are worked out again while transfers run. */
const SERVER_TICK_MS = 1000;
/** How often the speed settings are read again from the database (another engine instance may have changed them). */
const SETTINGS_RELOAD_MS = 10_000;

/** One formatter per time zone: making one costs far more than using it (it ran twice per transfer start). */
const wallFormats = new Map<string, Intl.DateTimeFormat>();

/** The day of the week (0 Sunday) and the minute of the day at unix time `ms` on the clock of `timeZone`. */
export function wallTime(ms: number, timeZone: string): { day: number; minute: number } {
  let format = wallFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", { timeZone, weekday: "short", hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
    wallFormats.set(timeZone, format);
  }
  const parts = format.formatToParts(ms);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? "";
  return { day: ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"].indexOf(part("weekday")), minute: Number(part("hour")) * 60 + Number(part("minute")) };
}

/** The server-wide limit of `direction` in bytes per second at `ms`: the lowest of the periods in effect (0 in all of them: unlimited), else the max speed. */
export function serverRate(speed: SpeedSettings, direction: Direction, ms: number, timeZone: string): number {
  const { day, minute } = wallTime(ms, timeZone);
  const key = direction === "upload" ? "uploadSpeed" : "downloadSpeed";
  const active = periodsAt(speed.periods, day, minute);
  if (active.length === 0) return userRate(direction === "upload" ? speed.maxUploadSpeed : speed.maxDownloadSpeed);
  const limited = active.map((p) => p[key]).filter((v) => v > 0);
  return limited.length === 0 ? 0 : userRate(Math.min(...limited));
}

export interface Speed {
  /**
   * The throttle of a transfer of `userId`'s bytes in space `groupId` (0 = personal). Every
   * transfer gets one (a server-wide limit or speed period may begin while it runs); null is kept in
   * the type for callers that pass no limit. Release it when the transfer ends.
   */
  throttle(userId: number, groupId: number, direction: Direction): Promise<Throttle | null>;
}

interface Limits {
  user: number;
  group: number;
}

export interface SpeedDeps {
  db: Db;
  settings: Settings;
  clock: Clock;
  /** IANA time zone of the periods' clock times (config.timeZone). */
  timeZone: string;
}

export function createSpeed({ db, settings, clock, timeZone }: SpeedDeps): Speed {
  const buckets = new Map<string, Bucket>();
  /** The two server-wide buckets every transfer passes; held while any transfer runs. */
  const server = { upload: new Bucket(), download: new Bucket() };
  let snapshot: SpeedSettings = SPEED_DEFAULTS;
  let loadedAt = -Infinity;
  let running = 0;
  let timer: NodeJS.Timeout | null = null;

  const apply = () => {
    const now = clock.now();
    server.upload.rate = serverRate(snapshot, "upload", now, timeZone);
    server.download.rate = serverRate(snapshot, "download", now, timeZone);
  };
  const reload = async () => {
    loadedAt = performance.now();
    try {
      snapshot = await settings.get("speed");
    } catch {
      // The database away for a moment: the last settings stay.
    }
    apply();
  };
  const tick = () => {
    if (performance.now() - loadedAt >= SETTINGS_RELOAD_MS) void reload();
    else apply();
  };
  settings.onChange((group) => {
    if (group === "speed") void reload();
  });

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
      if (running === 0 || performance.now() - loadedAt >= SETTINGS_RELOAD_MS) await reload();
      // Nothing limits this transfer and no server-wide limit or period is set: no throttle, so an
      // unlimited download may go to nginx (X-Accel-Redirect). A limit set later reaches new transfers.
      if (limits.user === 0 && limits.group === 0 && snapshot.maxUploadSpeed === 0 && snapshot.maxDownloadSpeed === 0 && snapshot.periods.length === 0) return null;
      // Every transfer passes the server-wide bucket, limited or not now: a period that begins while it runs slows it too.
      running++;
      timer ??= setInterval(tick, SERVER_TICK_MS).unref();
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
        if (--running === 0 && timer) {
          clearInterval(timer);
          timer = null;
        }
      };
      return new Throttle([...held, server[direction]], refresh, release);
    },
  };
}
