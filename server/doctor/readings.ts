import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { stat, statfs } from "node:fs/promises";
import path from "node:path";
import type { Config } from "../config";
import { type DiskReading, procPath, type Readings } from "./checks";

/**
 * Reads what server/doctor/checks.ts judges, from this host. Nothing here changes anything.
 * `quick` (the engine's start-up log, the admin dashboard): small /proc files and statfs only, no child process.
 */

const MAX_PROC_READ = 4096;

function readProc(key: string): string | null {
  try {
    return readFileSync(procPath(key), "utf8").slice(0, MAX_PROC_READ).trim();
  } catch {
    return null;
  }
}

const words = (text: string | null) => (text === null ? null : text.split(/\s+/).filter(Boolean));

function readNumber(key: string): number | null {
  const text = readProc(key);
  const n = text === null ? NaN : Number(text);
  return Number.isSafeInteger(n) ? n : null;
}

function readTriple(key: string): number[] | null {
  const parts = words(readProc(key))?.map(Number);
  return parts && parts.length === 3 && parts.every(Number.isSafeInteger) ? parts : null;
}

/** "Max open files  20000  20000  files" of /proc/self/limits ("unlimited" is not a number). */
export function openFileLimits(limits: string): { soft: number | null; hard: number | null } {
  const match = /^Max open files\s+(\S+)\s+(\S+)/m.exec(limits);
  const num = (s: string | undefined) => (s === undefined ? null : s === "unlimited" ? Number.MAX_SAFE_INTEGER : Number.isSafeInteger(Number(s)) ? Number(s) : null);
  return { soft: num(match?.[1]), hard: num(match?.[2]) };
}

/** The places Ferry writes to: data directory, storage root, installers, the SQLite file's folder. */
export function storagePlaces(config: Config): string[] {
  const places = [config.dataDir, path.join(config.dataDir, "storage"), config.installersDir];
  if (config.databaseUrl.startsWith("sqlite:")) places.push(path.dirname(path.resolve(config.databaseUrl.slice("sqlite:".length))));
  return [...new Set(places)];
}

/** Free and total bytes of each filesystem the places are on, once per filesystem (also the admin dashboard's storage). */
export async function readDisks(places: string[]): Promise<{ disks: DiskReading[]; errors: Readings["diskErrors"] }> {
  const byDevice = new Map<number, DiskReading>();
  const errors: Readings["diskErrors"] = [];
  for (const place of places) {
    // A place not created yet (fresh install) will be on its nearest existing parent's filesystem.
    let measured = place;
    let dev: number | null = null;
    while (dev === null) {
      try {
        dev = (await stat(measured)).dev;
      } catch (error) {
        const parent = path.dirname(measured);
        if ((error as NodeJS.ErrnoException).code !== "ENOENT" || parent === measured) break;
        measured = parent;
      }
    }
    if (dev === null) {
      errors.push({ path: place, error: "cannot be read" });
      continue;
    }
    const known = byDevice.get(dev);
    if (known) {
      known.paths.push(place);
      continue;
    }
    try {
      const s = await statfs(measured);
      byDevice.set(dev, { paths: [place], measured, dev, size: s.blocks * s.bsize, used: (s.blocks - s.bfree) * s.bsize, free: s.bavail * s.bsize });
    } catch (error) {
      errors.push({ path: place, error: (error as Error).message });
    }
  }
  return { disks: [...byDevice.values()], errors };
}

function run(file: string, args: string[]): Promise<string | null> {
  return new Promise((resolve) => {
    execFile(file, args, { timeout: 3000, maxBuffer: 64 * 1024 }, (error, stdout) => resolve(error ? null : stdout));
  });
}

/**
 * Whether the clock is kept in sync, by the first source that answers: systemd-timesyncd's flag
 * file, timedatectl (systemd), chrony. Nothing answering is said as such, not guessed.
 */
async function readClock(quick: boolean): Promise<Readings["clock"]> {
  if (existsSync("/run/systemd/timesync/synchronized")) return { synchronized: true, source: "systemd-timesyncd: /run/systemd/timesync/synchronized" };
  if (quick) return { synchronized: null, source: "no systemd-timesyncd flag file; the quick checks ask no time service (ferry doctor does)" };
  const timedatectl = await run("timedatectl", ["show", "--property=NTPSynchronized", "--value"]);
  if (timedatectl?.trim() === "yes") return { synchronized: true, source: "timedatectl: NTPSynchronized=yes" };
  if (timedatectl?.trim() === "no") return { synchronized: false, source: "timedatectl: NTPSynchronized=no" };
  const chrony = await run("chronyc", ["-n", "tracking"]);
  const leap = chrony ? /^Leap status\s*:\s*(.+)$/m.exec(chrony)?.[1]?.trim() : undefined;
  if (leap) return { synchronized: leap === "Normal", source: `chronyc tracking: leap status ${leap}` };
  return { synchronized: null, source: "no systemd-timesyncd flag file, and neither timedatectl nor chronyc answered" };
}

export async function readHost(config: Config, options: { quick?: boolean } = {}): Promise<Readings> {
  let limits = "";
  try {
    limits = readFileSync("/proc/self/limits", "utf8").slice(0, 16384);
  } catch {
    // not Linux, or no /proc: the limits are unreadable
  }
  const { soft, hard } = openFileLimits(limits);
  const [{ disks, errors }, clock] = await Promise.all([readDisks(storagePlaces(config)), readClock(options.quick ?? false)]);
  return {
    congestion: {
      current: readProc("net.ipv4.tcp_congestion_control"),
      available: words(readProc("net.ipv4.tcp_available_congestion_control")),
      allowed: words(readProc("net.ipv4.tcp_allowed_congestion_control")),
    },
    defaultQdisc: readProc("net.core.default_qdisc"),
    buffers: { rmemMax: readNumber("net.core.rmem_max"), wmemMax: readNumber("net.core.wmem_max"), tcpRmem: readTriple("net.ipv4.tcp_rmem"), tcpWmem: readTriple("net.ipv4.tcp_wmem") },
    files: { soft, hard, fileMax: readNumber("fs.file-max") },
    disks,
    diskErrors: errors,
    clock,
  };
}
