import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { renameSync, symlinkSync, utimesSync as setTimesNow } from "node:fs";
import type * as FsPromises from "node:fs/promises";
import { link, lstat, mkdir, mkdtemp, readFile, readdir, realpath, rm, stat, symlink, truncate, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { PERMISSION_FULL } from "../../contract/permissions";
import { loadConfig } from "../../server/config";
import { type Engine, startEngine } from "../../server/engine";
import { LEASE_STALE_MS, memoryLeases } from "../../server/storage/autoclean/lease";
import { autoCleanScheduleOf } from "../../server/storage/autoclean/wiring";
import { SALT, startTestEngine, type TestEngine } from "../support/engine";
import { connectFiles, type FileClient } from "../support/file-client";
import { type CleanAge, type CleanItem, type CleanPolicy, cleanAgeMs, runClean } from "../../server/storage/autoclean/cleaner";
import { startAutoCleanSchedule } from "../../server/storage/autoclean/schedule";
import { type CleanTarget, createAutoClean } from "../../server/storage/autoclean/service";
import { createInUse, filesInUse } from "../../server/storage/in-use";
import { createLocalStorage } from "../../server/storage/local";
import type { OperationEntry } from "../../server/logs/recorder";

/*
 * Auto-clean of a local storage (docs/storage.md, "Auto-clean"): real files whose times are set
 * with utimes, the engine's clock as a number the test chooses, the process's real registry of
 * open files (downloads read through the local storage driver).
 */

/**
 * Seams in the file system the engine uses, for what a test cannot bring about from outside in
 * time: the order of syncs and removals (a power cut between them), a folder swapped in the very
 * instant of a rename, a folder the run may not read (the tests run as root). All pass through to
 * the real calls.
 */
const fsSeams = vi.hoisted(() => ({
  /** When set, "sync <path>" and "unlink <path>" are recorded in order. */
  events: null as string[] | null,
  rename: null as ((from: string, to: string, real: () => Promise<void>) => Promise<void>) | null,
  readdir: null as ((dir: string) => void) | null,
  /** Throws to stand for a file system without hard links (EPERM). */
  link: null as ((from: string, to: string) => void) | null,
}));
vi.mock("node:fs/promises", async (importOriginal) => {
  const real = await importOriginal<typeof FsPromises>();
  const open: typeof real.open = async (file, ...rest) => {
    const handle = await real.open(file, ...rest);
    const sync = handle.sync.bind(handle);
    handle.sync = async () => {
      fsSeams.events?.push(`sync ${String(file)}`);
      return sync();
    };
    return handle;
  };
  const unlink: typeof real.unlink = async (file) => {
    fsSeams.events?.push(`unlink ${String(file)}`);
    return real.unlink(file);
  };
  const rename: typeof real.rename = (from, to) => (fsSeams.rename ? fsSeams.rename(String(from), String(to), () => real.rename(from, to)) : real.rename(from, to));
  const readdir = ((dir: string, ...rest: unknown[]) => {
    fsSeams.readdir?.(String(dir));
    return (real.readdir as (...args: unknown[]) => unknown)(dir, ...rest);
  }) as typeof real.readdir;
  const link: typeof real.link = async (from, to) => {
    fsSeams.link?.(String(from), String(to));
    return real.link(from, to);
  };
  const mocked = { ...real, open, unlink, rename, readdir, link };
  return { ...mocked, default: mocked };
});
afterEach(() => {
  fsSeams.events = null;
  fsSeams.rename = null;
  fsSeams.readdir = null;
  fsSeams.link = null;
});

const SECOND = 1000;
const DAY = 86_400_000;
/**
 * The engine's clock, years after the real one: utimes sets a file's change time (ctime) to the
 * real now, and "modified" looks at the later of mtime and ctime, so the files of these tests are
 * as old as their mtime says as long as that lies after the real now.
 */
const AHEAD = 3000 * DAY;
const NOW = Math.ceil(Date.now() / DAY) * DAY + AHEAD;

let dir: string;
let root: string;
let outside: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "ferry-autoclean-"));
  root = path.join(dir, "storage");
  outside = path.join(dir, "outside");
  await mkdir(root);
  await mkdir(outside);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Writes a file below `base` whose last access and last modification are `atime` / `mtime` (unix ms). */
async function put(base: string, rel: string, times: { atime: number; mtime: number }, content = rel): Promise<string> {
  const file = path.join(base, rel);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, content);
  await utimes(file, times.atime / 1000, times.mtime / 1000);
  return file;
}
const aged = (ms: number) => ({ atime: NOW - ms, mtime: NOW - ms });

/** Every path below `base` with its type, inode, size and times (read with lstat only: reading content would change the access time). */
async function snapshot(base: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (d: string) => {
    for (const name of (await readdir(d)).sort()) {
      const full = path.join(d, name);
      const info = await lstat(full);
      const key = path.relative(base, full);
      if (info.isDirectory()) {
        out[key] = `dir ${info.mtimeMs}`;
        await walk(full);
      } else if (info.isSymbolicLink()) out[key] = "link";
      else out[key] = `${info.ino} ${info.size} ${info.atimeMs} ${info.mtimeMs}`;
    }
  };
  await walk(base);
  return out;
}

const byModified = (age: CleanAge, recyclePath: string | null = null): CleanPolicy => ({ by: "modified", age, recyclePath });
const clean = (policy: CleanPolicy, extra: Partial<Parameters<typeof runClean>[0]> = {}) => runClean({ root, policy, now: NOW, inUse: filesInUse, ...extra });

/**
 * In the instant the cleaner takes /docs/a.txt into its staging area, /docs is a link to `to`
 * (the real folder parked at `parked`), and afterwards the real folder is back.
 */
function swapDocsDuringTake(parked: string, to: string) {
  fsSeams.rename = async (from, target, real) => {
    if (from !== path.join(root, "docs/a.txt") || !target.includes(".ferry-tmp")) return real();
    renameSync(path.join(root, "docs"), parked);
    symlinkSync(to, path.join(root, "docs"));
    try {
      await real();
    } finally {
      await rm(path.join(root, "docs"));
      renameSync(parked, path.join(root, "docs"));
    }
  };
}

const exists = (p: string) => lstat(p).then(() => true, () => false);

describe("ages", () => {
  const ages: [CleanAge, number][] = [
    ["7d", 7],
    ["1m", 30],
    ["3m", 90],
    ["6m", 180],
    ["1y", 365],
  ];

  for (const [age, days] of ages) {
    it(`${age}: a file unused for ${days} days is cleaned, one second less is kept`, async () => {
      expect(cleanAgeMs(age)).toBe(days * DAY);
      await put(root, "inside.txt", aged(days * DAY - SECOND));
      await put(root, "exactly.txt", aged(days * DAY));
      await put(root, "outside.txt", aged(days * DAY + SECOND));
      const report = await clean(byModified(age));
      expect(report.items.map((i) => i.path)).toEqual(["/exactly.txt", "/outside.txt"]);
      expect(report).toMatchObject({ deleted: 2, moved: 0, bytes: "exactly.txt".length + "outside.txt".length, errors: [], truncated: false });
      expect(await exists(path.join(root, "inside.txt"))).toBe(true);
      expect(await exists(path.join(root, "exactly.txt"))).toBe(false);
      expect(await exists(path.join(root, "outside.txt"))).toBe(false);
    });
  }

  it("by modified, a file copied in with its old modification time kept counts from when it came (its change time)", async () => {
    // utimes sets the change time to the real now, as cp -p or rsync -t do.
    await put(root, "copied-in.txt", { atime: Date.now() - 400 * DAY, mtime: Date.now() - 400 * DAY });
    const now = Date.now() + SECOND;
    const report = await runClean({ root, policy: byModified("7d"), now, inUse: filesInUse });
    expect(report).toMatchObject({ deleted: 0, items: [] });
    expect(await exists(path.join(root, "copied-in.txt"))).toBe(true);
    // Seven days after it came it is old.
    const ctime = (await lstat(path.join(root, "copied-in.txt"))).ctimeMs;
    const later = await runClean({ root, policy: byModified("7d"), now: ctime + 7 * DAY, inUse: filesInUse, dryRun: true });
    expect(later.items).toEqual([{ path: "/copied-in.txt", size: "copied-in.txt".length, time: Math.floor(ctime), action: "delete" }]);
    // By accessed too: its access time was kept as well (cp -p), but it came just now.
    const accessed = await runClean({ root, policy: { by: "accessed", age: "7d", recyclePath: null }, now, inUse: filesInUse });
    expect(accessed).toMatchObject({ deleted: 0, items: [] });
    expect(await exists(path.join(root, "copied-in.txt"))).toBe(true);
    const accessedLater = await runClean({ root, policy: { by: "accessed", age: "7d", recyclePath: null }, now: ctime + 7 * DAY, inUse: filesInUse, dryRun: true });
    expect(accessedLater.items.map((i) => [i.path, i.time])).toEqual([["/copied-in.txt", Math.floor(ctime)]]);
  });

  it("by accessed looks at the latest of access, modification and change (a noatime mount sees no reads, but writes); by modified at modification or change only", async () => {
    const readLately = { atime: NOW - DAY, mtime: NOW - 400 * DAY };
    const touchedLately = { atime: NOW - 400 * DAY, mtime: NOW - DAY };
    await put(root, "read-lately.txt", readLately);
    await put(root, "written-lately.txt", touchedLately);
    await put(root, "unused.txt", aged(400 * DAY));

    const accessed = await clean({ by: "accessed", age: "1y", recyclePath: null }, { dryRun: true });
    expect(accessed.items.map((i) => [i.path, i.time])).toEqual([["/unused.txt", NOW - 400 * DAY]]);
    const modified = await clean(byModified("1y"), { dryRun: true });
    expect(modified.items.map((i) => [i.path, i.time])).toEqual([
      ["/read-lately.txt", NOW - 400 * DAY],
      ["/unused.txt", NOW - 400 * DAY],
    ]);

    await clean({ by: "accessed", age: "1y", recyclePath: null });
    expect(await exists(path.join(root, "unused.txt"))).toBe(false);
    expect(await exists(path.join(root, "written-lately.txt"))).toBe(true);
    expect(await exists(path.join(root, "read-lately.txt"))).toBe(true);
  });
});

describe("recycle or delete", () => {
  it("moves old files into the recycle path under their path, keeping content and times; folders stay", async () => {
    const recycle = path.join(dir, "recycle");
    await put(root, "users/alice/docs/old.pdf", aged(40 * DAY), "pdf bytes");
    await put(root, "users/alice/docs/new.pdf", aged(DAY));
    await put(root, "groups/3/report.txt", { atime: NOW - 40 * DAY, mtime: NOW - 50 * DAY }, "report");

    const report = await clean(byModified("1m", recycle));
    expect(report).toMatchObject({ moved: 2, deleted: 0, bytes: 15, errors: [] });
    expect(report.items).toEqual([
      { path: "/groups/3/report.txt", size: 6, time: NOW - 50 * DAY, action: "recycle", to: path.join(recycle, "groups/3/report.txt") },
      { path: "/users/alice/docs/old.pdf", size: 9, time: NOW - 40 * DAY, action: "recycle", to: path.join(recycle, "users/alice/docs/old.pdf") },
    ]);
    expect(await readFile(path.join(recycle, "users/alice/docs/old.pdf"), "utf8")).toBe("pdf bytes");
    const moved = await stat(path.join(recycle, "groups/3/report.txt"));
    expect([moved.atimeMs, moved.mtimeMs]).toEqual([NOW - 40 * DAY, NOW - 50 * DAY]);
    expect(await exists(path.join(root, "users/alice/docs/old.pdf"))).toBe(false);
    expect(await exists(path.join(root, "users/alice/docs/new.pdf"))).toBe(true);
    // The folder the moved file was in stays, now empty.
    expect(await readdir(path.join(root, "groups/3"))).toEqual([]);
  });

  it("the recycle folder is synced after the file is named there and before the original goes: a power cut keeps one of the two", async () => {
    const recycle = path.join(await realpath(dir), "recycle");
    await put(root, "docs/a.txt", aged(40 * DAY), "a's bytes");
    fsSeams.events = [];
    const report = await clean(byModified("1m", recycle));
    expect(report).toMatchObject({ moved: 1, errors: [] });
    const events = fsSeams.events;
    const synced = events.indexOf(`sync ${path.join(recycle, "docs")}`);
    // The original is the held name (.ferry-tmp/autoclean/<run id>/docs/a.txt).
    const removed = events.findIndex((e) => e.startsWith(`unlink ${path.join(root, ".ferry-tmp", "autoclean")}`) && e.endsWith("/docs/a.txt"));
    expect(synced).toBeGreaterThanOrEqual(0);
    expect(removed).toBeGreaterThan(synced);
    expect(await readFile(path.join(recycle, "docs/a.txt"), "utf8")).toBe("a's bytes");
  });

  it("deletes when the storage has no recycle path", async () => {
    await put(root, "a/old.txt", aged(8 * DAY));
    const report = await clean(byModified("7d"));
    expect(report).toMatchObject({ deleted: 1, moved: 0, items: [{ path: "/a/old.txt", action: "delete" }] });
    expect(report.items[0]!.to).toBeUndefined();
    expect(await readdir(path.join(root, "a"))).toEqual([]);
  });

  it("a name taken in the recycle path gets a suffix; nothing there is overwritten", async () => {
    const recycle = path.join(dir, "recycle");
    await put(recycle, "docs/a.txt", aged(0), "recycled earlier");
    await put(recycle, "docs/a (1).txt", aged(0), "recycled earlier too");
    await put(recycle, "docs/.profile", aged(0), "dotfile earlier");
    await put(root, "docs/a.txt", aged(400 * DAY), "new victim");
    await put(root, "docs/.profile", aged(400 * DAY), "profile");

    const dry = await clean(byModified("1y", recycle), { dryRun: true });
    const real = await clean(byModified("1y", recycle));
    expect(real.items.map((i) => i.to)).toEqual([path.join(recycle, "docs/.profile (1)"), path.join(recycle, "docs/a (2).txt")]);
    expect(dry.items).toEqual(real.items);
    expect(await readFile(path.join(recycle, "docs/a.txt"), "utf8")).toBe("recycled earlier");
    expect(await readFile(path.join(recycle, "docs/a (1).txt"), "utf8")).toBe("recycled earlier too");
    expect(await readFile(path.join(recycle, "docs/a (2).txt"), "utf8")).toBe("new victim");
    expect(await readFile(path.join(recycle, "docs/.profile"), "utf8")).toBe("dotfile earlier");
    expect(await readFile(path.join(recycle, "docs/.profile (1)"), "utf8")).toBe("profile");
  });

  it("a recycle path inside the root is never cleaned; the root or a folder holding it is refused", async () => {
    const recycle = path.join(root, "recycle-bin");
    await put(recycle, "long/gone.txt", aged(999 * DAY));
    await put(root, "old.txt", aged(999 * DAY));
    const report = await clean(byModified("7d", recycle));
    expect(report.items.map((i) => i.path)).toEqual(["/old.txt"]);
    expect(await exists(path.join(recycle, "long/gone.txt"))).toBe(true);
    expect(await exists(path.join(recycle, "old.txt"))).toBe(true);

    await expect(clean(byModified("7d", root))).rejects.toMatchObject({ errorName: "PathFormatError" });
    await expect(clean(byModified("7d", dir))).rejects.toMatchObject({ errorName: "PathFormatError" });
    await expect(clean(byModified("7d", "relative/bin"))).rejects.toMatchObject({ errorName: "PathFormatError" });
  });
});

describe("a recycle path on another file system", () => {
  let other: string;
  beforeEach(async () => {
    // /dev/shm is a tmpfs: another file system than the temporary folder's.
    other = await mkdtemp("/dev/shm/ferry-autoclean-");
    expect((await stat(other)).dev).not.toBe((await stat(root)).dev);
  });
  afterEach(async () => {
    await rm(other, { recursive: true, force: true });
  });

  it("gets a copy under a temporary name, synced, then named; content and times kept, the original gone", async () => {
    await put(root, "docs/a.txt", { atime: NOW - 40 * DAY, mtime: NOW - 50 * DAY }, "a's bytes");
    await put(other, "docs/a.txt", aged(0), "recycled earlier");
    const temporaries: string[] = [];
    const report = await clean(byModified("1m", other), {
      afterCopy: async (temporary) => {
        temporaries.push(temporary);
        // While the bytes are copied, no file has the name in the recycle path yet.
        expect(path.dirname(temporary)).toBe(path.join(other, "docs"));
        expect(await exists(path.join(other, "docs/a (1).txt"))).toBe(false);
      },
    });
    expect(report).toMatchObject({ moved: 1, errors: [], items: [{ path: "/docs/a.txt", to: path.join(other, "docs/a (1).txt") }] });
    expect(temporaries).toHaveLength(1);
    expect(await readFile(path.join(other, "docs/a (1).txt"), "utf8")).toBe("a's bytes");
    const moved = await stat(path.join(other, "docs/a (1).txt"));
    expect([moved.atimeMs, moved.mtimeMs]).toEqual([NOW - 40 * DAY, NOW - 50 * DAY]);
    expect((await readdir(path.join(other, "docs"))).sort()).toEqual(["a (1).txt", "a.txt"]);
    expect(await readdir(path.join(root, "docs"))).toEqual([]);
  });

  it("the recycle folder is synced after the copy is named there and before the original goes", async () => {
    await put(root, "docs/a.txt", aged(40 * DAY), "a's bytes");
    fsSeams.events = [];
    const report = await clean(byModified("1m", other));
    expect(report).toMatchObject({ moved: 1, errors: [] });
    const events = fsSeams.events;
    const synced = events.indexOf(`sync ${path.join(await realpath(other), "docs")}`);
    const removed = events.findIndex((e) => e.startsWith(`unlink ${path.join(root, ".ferry-tmp", "autoclean")}`) && e.endsWith("/docs/a.txt"));
    expect(synced).toBeGreaterThanOrEqual(0);
    expect(removed).toBeGreaterThan(synced);
  });

  it("a file that answers EXDEV on its own root's device is no mount inside the storage: a folder swapped to another file system and back is not acted on in place", async () => {
    await put(root, "docs/a.txt", aged(400 * DAY), "the walked file");
    await put(other, "docs/a.txt", aged(400 * DAY), "a file on another file system");
    const parked = path.join(outside, "docs-parked");
    swapDocsDuringTake(parked, path.join(other, "docs"));
    const report = await clean(byModified("1y"));
    expect(report).toMatchObject({ deleted: 0, items: [], errors: [{ path: "/docs/a.txt", code: 4173, message: expect.stringContaining("another file system") }] });
    expect(report.errors[0]!.message).toContain(path.join(root, "docs/a.txt"));
    expect(await readFile(path.join(root, "docs/a.txt"), "utf8")).toBe("the walked file");
    expect(await readFile(path.join(other, "docs/a.txt"), "utf8")).toBe("a file on another file system");
  });

  it("a copy that fails half-way leaves no partial file in the recycle path, and the original in its place", async () => {
    await put(root, "docs/big.bin", aged(50 * DAY), "x".repeat(64 * 1024));
    await put(root, "docs/small.txt", aged(50 * DAY), "small");
    const report = await clean(byModified("1m", other), {
      afterCopy: async (temporary) => {
        if (!temporary.startsWith(path.join(other, "docs/"))) return;
        if ((await stat(temporary)).size < 64 * 1024) return;
        // The recycle file system fills up half-way through the big file.
        await truncate(temporary, 32 * 1024);
        throw Object.assign(new Error("no space left on device"), { code: "ENOSPC" });
      },
    });
    expect(report).toMatchObject({ moved: 1, errors: [{ path: "/docs/big.bin", code: 4173, message: "ENOSPC: no space left on device" }], items: [{ path: "/docs/small.txt" }] });
    expect(await readdir(path.join(other, "docs"))).toEqual(["small.txt"]);
    expect(await readFile(path.join(root, "docs/big.bin"), "utf8")).toBe("x".repeat(64 * 1024));
    expect(await readdir(path.join(root, "docs"))).toEqual(["big.bin"]);
    expect(await readdir(path.join(root, ".ferry-tmp"))).toEqual([]);
  });
});

describe("a run that crashed with a file held (kill -9)", () => {
  const repo = path.resolve(import.meta.dirname, "../..");
  let other: string;
  beforeEach(async () => {
    other = await mkdtemp("/dev/shm/ferry-autoclean-");
  });
  afterEach(async () => {
    await rm(other, { recursive: true, force: true });
  });

  /** Runs auto-clean to the recycle path `other` (another file system: a copy) in a child process, killed once a file is held. */
  async function crashWhileHeld(): Promise<void> {
    const child = spawn(process.execPath, ["--import", "tsx", "tests/support/autoclean-child.ts"], {
      cwd: repo,
      env: { ...process.env, FERRY_CHILD: JSON.stringify({ root, recycle: other, now: NOW }) },
      stdio: ["ignore", "pipe", "inherit"],
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once("exit", (_code, signal) => resolve(signal)));
    let out = "";
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes("held")) resolve();
      });
      void exited.then(() => reject(new Error(`the run ended before it held a file: ${out}`)));
    });
    child.kill("SIGKILL");
    expect(await exited).toBe("SIGKILL");
  }

  const held = async () => (await readdir(path.join(root, ".ferry-tmp"), { recursive: true })).filter((p) => p.endsWith(".txt"));

  it("the staging area's stale clean-up keeps the held file, and the next run finishes its move to the recycle path", async () => {
    await put(root, "docs/a.txt", aged(400 * DAY), "a's bytes");
    await crashWhileHeld();
    // Neither in its place nor in the recycle path: only held, under its path.
    expect(await exists(path.join(root, "docs/a.txt"))).toBe(false);
    expect(await exists(path.join(other, "docs/a.txt"))).toBe(false);
    expect(await held()).toEqual([expect.stringMatching(/^autoclean\/[0-9a-f-]{36}\/docs\/a\.txt$/)]);
    // The engine starts again two hours later and clears staging data older than an hour.
    const restarted = createLocalStorage(root, { now: () => Date.now() + 2 * 60 * 60 * 1000 });
    expect(await restarted.cleanupStale(60 * 60 * 1000)).toBe(0);
    expect(await held()).toHaveLength(1);
    const items: CleanItem[] = [];
    const report = await clean(byModified("1y", other), { onItem: (item) => items.push(item) });
    expect(report).toMatchObject({ moved: 1, errors: [], items: [{ path: "/docs/a.txt", action: "recycle", to: path.join(other, "docs/a.txt") }] });
    expect(items.map((i) => i.path)).toEqual(["/docs/a.txt"]);
    expect(await readFile(path.join(other, "docs/a.txt"), "utf8")).toBe("a's bytes");
    expect(await readdir(path.join(root, ".ferry-tmp"))).toEqual([]);
  });

  for (const recycling of [true, false]) {
    it(`a held file goes back where its name is free; else it is ${recycling ? "moved to the recycle path" : "deleted, the policy being delete"}`, async () => {
      const recycle = recycling ? path.join(dir, "recycle") : null;
      // What a run that crashed leaves: files held under their path in its run folder.
      const run = path.join(root, ".ferry-tmp/autoclean", randomUUID());
      await put(run, "docs/free.txt", aged(10 * DAY), "free's");
      await put(run, "docs/taken.txt", aged(10 * DAY), "held taken.txt");
      await put(run, "linked/x.txt", aged(10 * DAY), "held x.txt");
      await put(root, "docs/taken.txt", aged(0), "a new taken.txt");
      // A folder on the way swapped for a link to a folder outside: the file is not put back through it.
      await mkdir(path.join(outside, "elsewhere"));
      await symlink(path.join(outside, "elsewhere"), path.join(root, "linked"));
      const items: CleanItem[] = [];
      const report = await clean(byModified("1m", recycle), { onItem: (item) => items.push(item) });
      const action = recycling ? "recycle" : "delete";
      expect(report).toMatchObject({ errors: [], items: [{ path: "/docs/taken.txt", action }, { path: "/linked/x.txt", action }] });
      expect(items.map((i) => i.path)).toEqual(["/docs/taken.txt", "/linked/x.txt"]);
      // Put back, and young enough for this policy: it stays.
      expect(await readFile(path.join(root, "docs/free.txt"), "utf8")).toBe("free's");
      expect(await readFile(path.join(root, "docs/taken.txt"), "utf8")).toBe("a new taken.txt");
      expect(await readdir(path.join(outside, "elsewhere"))).toEqual([]);
      if (recycle) {
        expect(await readFile(path.join(recycle, "docs/taken.txt"), "utf8")).toBe("held taken.txt");
        expect(await readFile(path.join(recycle, "linked/x.txt"), "utf8")).toBe("held x.txt");
      }
      expect(await readdir(path.join(root, ".ferry-tmp"))).toEqual([]);
    });
  }

  it("a dry run leaves held files held; a run going on in this process is not taken for a crashed one", async () => {
    const crashed = path.join(root, ".ferry-tmp/autoclean", randomUUID());
    await put(crashed, "docs/a.txt", aged(400 * DAY), "a's bytes");
    expect(await clean(byModified("1y"), { dryRun: true })).toMatchObject({ items: [] });
    expect(await held()).toEqual([path.join("autoclean", path.basename(crashed), "docs/a.txt")]);
    // A second run starts while the first holds b.txt: it finishes only the crashed run's file.
    await rm(crashed, { recursive: true });
    await put(root, "b.txt", aged(400 * DAY), "b's bytes");
    const recycle = path.join(dir, "recycle");
    let second: Promise<unknown> | null = null;
    const first = await clean(byModified("1y", other), {
      afterCopy: async () => {
        expect(await held()).toEqual([expect.stringMatching(/\/b\.txt$/)]);
        await put(crashed, "docs/a.txt", aged(400 * DAY), "a's bytes");
        second ??= clean(byModified("1y", recycle));
        await second;
      },
    });
    expect(await second).toMatchObject({ errors: [], items: [{ path: "/docs/a.txt", to: path.join(recycle, "docs/a.txt") }] });
    expect(first).toMatchObject({ errors: [], items: [{ path: "/b.txt", to: path.join(other, "b.txt") }] });
    expect(await readFile(path.join(recycle, "docs/a.txt"), "utf8")).toBe("a's bytes");
    expect(await readFile(path.join(other, "b.txt"), "utf8")).toBe("b's bytes");
    expect(await readdir(path.join(root, ".ferry-tmp"))).toEqual([]);
  });

  for (const mode of ["delete", "recycle", "put back"] as const) {
    it(`recovery (${mode}) looks at the holding folder again before each act: a staging area swapped for a link meanwhile stops it, nothing outside is touched`, async () => {
      const recycle = mode === "recycle" ? path.join(dir, "recycle") : null;
      const id = randomUUID();
      const run = path.join(root, ".ferry-tmp/autoclean", id);
      await put(run, "docs/a.txt", aged(10 * DAY), "held a.txt");
      if (mode !== "put back") await put(root, "docs/a.txt", aged(0), "a new a.txt");
      // The same layout outside, with a file of the same name: where the planted link leads.
      const decoy = path.join(outside, "tmp");
      await put(decoy, `autoclean/${id}/docs/a.txt`, aged(10 * DAY), "outside's a.txt");
      const before = await snapshot(outside);
      // A user with write access renames .ferry-tmp away and plants a link while recovery goes on.
      fsSeams.readdir = (folder) => {
        if (folder !== path.join(run, "docs")) return;
        fsSeams.readdir = null;
        renameSync(path.join(root, ".ferry-tmp"), path.join(dir, "moved-away"));
        symlinkSync(decoy, path.join(root, ".ferry-tmp"));
      };
      const report = await clean(byModified("1m", recycle));
      expect(report.items).toEqual([]);
      expect(report.errors).toEqual([{ path: `/.ferry-tmp/autoclean/${id}/docs/a.txt`, code: 4173, message: expect.stringContaining(`(${path.join(run, "docs/a.txt")})`) }]);
      expect(await snapshot(outside)).toEqual(before);
      expect(await readFile(path.join(dir, "moved-away/autoclean", id, "docs/a.txt"), "utf8")).toBe("held a.txt");
      if (recycle) expect(await exists(path.join(recycle, "docs/a.txt"))).toBe(false);
      if (mode === "put back") expect(await exists(path.join(root, "docs/a.txt"))).toBe(false);
      else expect(await readFile(path.join(root, "docs/a.txt"), "utf8")).toBe("a new a.txt");
    });
  }

  it("a held file the crashed run had already linked into the recycle path (killed before the unlink) only loses its held name: not put back, no second copy", async () => {
    const recycle = path.join(dir, "recycle");
    const run = path.join(root, ".ferry-tmp/autoclean", randomUUID());
    const a = await put(run, "docs/a.txt", aged(10 * DAY), "held a.txt");
    const b = await put(run, "docs/b.txt", aged(10 * DAY), "held b.txt");
    await mkdir(path.join(recycle, "docs"), { recursive: true });
    await link(a, path.join(recycle, "docs/a.txt"));
    // b's name was taken in the recycle path: the crashed run had linked it as "b (1).txt".
    await writeFile(path.join(recycle, "docs/b.txt"), "another b.txt");
    await link(b, path.join(recycle, "docs/b (1).txt"));
    const report = await clean(byModified("1m", recycle));
    expect(report).toMatchObject({
      errors: [],
      moved: 2,
      items: [
        { path: "/docs/a.txt", action: "recycle", to: path.join(recycle, "docs/a.txt") },
        { path: "/docs/b.txt", action: "recycle", to: path.join(recycle, "docs/b (1).txt") },
      ],
    });
    expect(await exists(path.join(root, "docs"))).toBe(false);
    expect((await readdir(path.join(recycle, "docs"))).sort()).toEqual(["a.txt", "b (1).txt", "b.txt"]);
    expect((await stat(path.join(recycle, "docs/a.txt"))).nlink).toBe(1);
    expect(await readdir(path.join(root, ".ferry-tmp"))).toEqual([]);
  });

  it("a held file is not put back at a name in use (an upload about to be placed there): it goes by the policy", async () => {
    const recycle = path.join(dir, "recycle");
    const run = path.join(root, ".ferry-tmp/autoclean", randomUUID());
    await put(run, "docs/a.txt", aged(10 * DAY), "held a.txt");
    await mkdir(path.join(root, "docs"));
    const original = path.join(root, "docs/a.txt");
    const report = await clean(byModified("1m", recycle), { inUse: { isInUse: (absolute) => absolute === original } });
    expect(report).toMatchObject({ errors: [], items: [{ path: "/docs/a.txt", action: "recycle", to: path.join(recycle, "docs/a.txt") }] });
    expect(await exists(original)).toBe(false);
    expect(await readFile(path.join(recycle, "docs/a.txt"), "utf8")).toBe("held a.txt");
  });

  it("without hard links a held file goes back only over a name it reserved (exclusive create), never over a file placed after a look", async () => {
    const run = path.join(root, ".ferry-tmp/autoclean", randomUUID());
    const held = await put(run, "docs/a.txt", aged(10 * DAY), "held a.txt");
    await mkdir(path.join(root, "docs"));
    const original = path.join(root, "docs/a.txt");
    fsSeams.link = () => {
      throw Object.assign(new Error("EPERM: operation not permitted, link"), { code: "EPERM" });
    };
    let reservedBefore: boolean | null = null;
    fsSeams.rename = async (from, to, real) => {
      if (from === held && to === original) reservedBefore = await exists(original);
      return real();
    };
    const report = await clean(byModified("1m"));
    expect(report).toMatchObject({ errors: [], items: [] });
    expect(reservedBefore).toBe(true);
    expect(await readFile(original, "utf8")).toBe("held a.txt");
    expect(await exists(held)).toBe(false);
  });

  it("a run folder recovery cannot read (a root-owned 0700 one) is reported with its path and why; the other run folders are finished and the walk goes on", async () => {
    const locked = path.join(root, ".ferry-tmp/autoclean", randomUUID());
    const crashed = path.join(root, ".ferry-tmp/autoclean", randomUUID());
    await put(locked, "docs/l.txt", aged(400 * DAY));
    await put(crashed, "docs/c.txt", aged(400 * DAY));
    await put(root, "old.txt", aged(400 * DAY));
    fsSeams.readdir = (folder) => {
      if (folder === locked) throw Object.assign(new Error(`EACCES: permission denied, scandir '${folder}'`), { code: "EACCES" });
    };
    const report = await clean(byModified("1y"));
    expect(report.errors).toEqual([{ path: `/.ferry-tmp/autoclean/${path.basename(locked)}`, code: 4173, message: `EACCES: permission denied, scandir '${locked}'` }]);
    // c.txt went back to its place (recover), where the walk then took it.
    expect(report.items.map((i) => i.path).sort()).toEqual(["/docs/c.txt", "/old.txt"]);
    expect(await exists(path.join(locked, "docs/l.txt"))).toBe(true);
  });
});

describe("the recycle path's real place", () => {
  it("a recycle path outside the root that leads into it through a link is refused: the run would clean its own recycle bin", async () => {
    await put(root, "bin/old.txt", aged(999 * DAY), "recycled long ago");
    await symlink(path.join(root, "bin"), path.join(outside, "bin-link"));
    const bin = await realpath(path.join(root, "bin"));
    await expect(clean(byModified("7d", path.join(outside, "bin-link")))).rejects.toMatchObject({ errorName: "PathFormatError", data: { path: bin } });
    await expect(clean(byModified("7d", path.join(outside, "bin-link/deeper")), { dryRun: true })).rejects.toMatchObject({ errorName: "PathFormatError" });
    expect(await readdir(path.join(root, "bin"))).toEqual(["old.txt"]);
  });

  it("a recycle path inside the root that leads out through a link, or one that really holds the root, is refused", async () => {
    await put(root, "old.txt", aged(999 * DAY));
    await mkdir(path.join(outside, "elsewhere"));
    await symlink(path.join(outside, "elsewhere"), path.join(root, "bin"));
    await expect(clean(byModified("7d", path.join(root, "bin")))).rejects.toMatchObject({ errorName: "PathFormatError" });
    await symlink(dir, path.join(outside, "up"));
    await expect(clean(byModified("7d", path.join(outside, "up")))).rejects.toMatchObject({ errorName: "PathFormatError" });
    await expect(clean(byModified("7d", path.join(outside, "up/storage")))).rejects.toMatchObject({ errorName: "PathFormatError" });
    expect(await readdir(path.join(outside, "elsewhere"))).toEqual([]);
    expect(await exists(path.join(root, "old.txt"))).toBe(true);
  });

  it("a recycle path inside the root is never cleaned, also when the walk reaches it by another path than the one saved", async () => {
    await put(root, "a/bin/gone.txt", aged(999 * DAY), "recycled long ago");
    await put(root, "a/old.txt", aged(999 * DAY), "old");
    await symlink(path.join(root, "a"), path.join(root, "link"));
    const report = await clean(byModified("7d", path.join(root, "link/bin")));
    expect(report.items).toEqual([{ path: "/a/old.txt", size: 3, time: NOW - 999 * DAY, action: "recycle", to: path.join(root, "link/bin/a/old.txt") }]);
    expect(await readFile(path.join(root, "a/bin/gone.txt"), "utf8")).toBe("recycled long ago");
    expect(await readFile(path.join(root, "a/bin/a/old.txt"), "utf8")).toBe("old");
  });
});

describe("dry run", () => {
  it("changes nothing and lists exactly what the real run then does", async () => {
    const recycle = path.join(dir, "recycle");
    for (let i = 0; i < 12; i++) await put(root, `f${i % 3}/file-${i}.bin`, aged((i % 2 === 0 ? 100 : 10) * DAY), "x".repeat(i));
    await put(recycle, "f0/file-0.bin", aged(0), "taken");
    const before = await snapshot(dir);

    const dry = await clean(byModified("3m", recycle), { dryRun: true });
    expect(await snapshot(dir)).toEqual(before);
    expect(dry.dryRun).toBe(true);
    expect(dry.items).toHaveLength(6);

    const real = await clean(byModified("3m", recycle));
    expect(real.items).toEqual(dry.items);
    const { items: _d, dryRun: _x, ...dryCounts } = dry;
    const { items: _r, dryRun: _y, ...realCounts } = real;
    expect(realCounts).toEqual(dryCounts);
    for (const item of real.items) expect(await exists(item.to!)).toBe(true);
    expect(real.items.find((i) => i.path === "/f0/file-0.bin")!.to).toBe(path.join(recycle, "f0/file-0 (1).bin"));
  });
});

describe("what is never touched", () => {
  it("a file a download holds open is skipped, and taken by the run after the download ended", async () => {
    await put(root, "users/bob/movie.mkv", aged(200 * DAY), "x".repeat(4 * 1024 * 1024));
    const storage = createLocalStorage(path.join(root, "users/bob"));
    // A download mid-stream: one chunk read, the rest waiting for the client.
    const stream = await storage.createReadStream("/movie.mkv", { bufferSize: 64 * 1024 });
    const first = await new Promise<Buffer>((resolve) => stream.once("data", resolve));
    stream.pause();
    expect(first.length).toBe(64 * 1024);

    const report = await clean(byModified("6m"));
    expect(report).toMatchObject({ skippedInUse: 1, deleted: 0, items: [] });
    expect(await exists(path.join(root, "users/bob/movie.mkv"))).toBe(true);

    // The download goes on to the end and gets every byte.
    let rest = first.length;
    stream.on("data", (c: Buffer) => (rest += c.length));
    const closed = new Promise((resolve) => stream.once("close", resolve));
    stream.resume();
    await closed;
    expect(rest).toBe(4 * 1024 * 1024);
    // Closed now: the next run takes it.
    expect(await clean(byModified("6m"))).toMatchObject({ skippedInUse: 0, deleted: 1 });
  });

  it("a file reached through a link or a virtual directory is the same open file", async () => {
    await put(root, "team/plan.txt", aged(200 * DAY));
    await symlink(path.join(root, "team"), path.join(root, "team-link"));
    const reader = await createLocalStorage(root).openReader("/team-link/plan.txt");
    try {
      expect(await clean(byModified("6m"))).toMatchObject({ skippedInUse: 1, deleted: 0 });
    } finally {
      await reader.close();
    }
    expect(await clean(byModified("6m"))).toMatchObject({ skippedInUse: 0, deleted: 1 });
  });

  it("an upload's staging and the file an upload in progress will replace are skipped", async () => {
    // A tus upload's bytes live in the staging area until its commit places them.
    await put(root, "users/carol/.ferry-tmp/tus/0123abcd", aged(400 * DAY));
    await put(root, ".ferry-tmp/old.upload", aged(400 * DAY));
    await put(root, "users/carol/report.docx", aged(400 * DAY), "old version");
    const storage = createLocalStorage(path.join(root, "users/carol"));
    const writer = await storage.beginWrite("/report.docx", { overwrite: true });
    await writer.write(Buffer.from("new version"));

    const report = await clean(byModified("1y"));
    expect(report).toMatchObject({ skippedInUse: 1, deleted: 0, items: [] });
    expect(await exists(path.join(root, "users/carol/.ferry-tmp/tus/0123abcd"))).toBe(true);
    expect(await exists(path.join(root, ".ferry-tmp/old.upload"))).toBe(true);

    await writer.commit();
    expect(await readFile(path.join(root, "users/carol/report.docx"), "utf8")).toBe("new version");
    // The new version is new (written now, by the real clock): nothing to clean, and the staging area is still never touched.
    expect(await clean(byModified("1y"), { now: Date.now() })).toMatchObject({ skippedInUse: 0, deleted: 0 });
    expect(await exists(path.join(root, ".ferry-tmp/old.upload"))).toBe(true);
  });

  it("symbolic links are neither followed nor cleaned", async () => {
    const target = await put(outside, "precious.txt", aged(999 * DAY));
    await put(outside, "folder/also-precious.txt", aged(999 * DAY));
    await symlink(target, path.join(root, "link-to-file"));
    await symlink(path.join(outside, "folder"), path.join(root, "link-to-folder"));
    await symlink(path.join(root, "nowhere"), path.join(root, "dangling"));
    const report = await clean(byModified("7d"));
    expect(report).toMatchObject({ deleted: 0, moved: 0, errors: [], items: [] });
    expect(await exists(target)).toBe(true);
    expect(await exists(path.join(outside, "folder/also-precious.txt"))).toBe(true);
    expect((await lstat(path.join(root, "link-to-file"))).isSymbolicLink()).toBe(true);
    expect((await lstat(path.join(root, "dangling"))).isSymbolicLink()).toBe(true);
  });

  for (const recycling of [false, true]) {
    it(`a folder swapped for a link to a folder outside between the walk and the ${recycling ? "move" : "delete"} is left, and nothing outside is touched`, async () => {
      const recycle = recycling ? path.join(dir, "recycle") : null;
      await put(root, "a-first.txt", aged(400 * DAY));
      await put(root, "users/alice/docs/old.txt", aged(400 * DAY), "alice's");
      await put(root, "users/alice/docs/zz.txt", aged(400 * DAY), "alice's too");
      await put(root, "users/bob/old.txt", aged(400 * DAY), "bob's");
      await put(outside, "unrelated.txt", aged(400 * DAY));
      // The walk saw users/alice/docs; right after the first file went, the folder moves outside
      // the root (same files, same inodes) and a link to it takes its place.
      const moved = path.join(outside, "docs");
      const onItem = (item: { path: string }) => {
        if (item.path !== "/a-first.txt") return;
        renameSync(path.join(root, "users/alice/docs"), moved);
        symlinkSync(moved, path.join(root, "users/alice/docs"));
      };
      const before = await snapshot(root);
      const report = await clean(byModified("1y", recycle), { onItem });
      expect(report).toMatchObject({ skippedChanged: 2, errors: [], items: [{ path: "/a-first.txt" }, { path: "/users/bob/old.txt" }] });
      // Outside: the moved folder with both files as they were, and nothing else changed.
      const after = await snapshot(outside);
      expect(Object.keys(after)).toEqual(["docs", "docs/old.txt", "docs/zz.txt", "unrelated.txt"]);
      expect(after["docs/old.txt"]).toBe(before["users/alice/docs/old.txt"]);
      expect(after["docs/zz.txt"]).toBe(before["users/alice/docs/zz.txt"]);
      if (recycle) expect((await readdir(recycle, { recursive: true })).sort()).toEqual(["a-first.txt", "users", "users/bob", "users/bob/old.txt"]);
      // The run's staging folder is gone again.
      expect(await readdir(path.join(root, ".ferry-tmp"))).toEqual([]);
    });
  }

  it("a link planted as the root's staging area is not followed: the files stay and say why", async () => {
    await put(root, "old.txt", aged(400 * DAY), "kept");
    await mkdir(path.join(outside, "staging"));
    await symlink(path.join(outside, "staging"), path.join(root, ".ferry-tmp"));
    const report = await clean(byModified("1y"));
    expect(report).toMatchObject({ deleted: 0, errors: [{ path: "/old.txt", code: 4173, message: `FileSystemError: the staging area is no folder (${path.join(root, ".ferry-tmp")})` }] });
    expect(await readdir(path.join(outside, "staging"))).toEqual([]);
    expect(await readFile(path.join(root, "old.txt"), "utf8")).toBe("kept");
  });

  it("a file from outside that came through a folder swapped in the instant of the take is not put into the storage when the folder is swapped back; the error says where it is held", async () => {
    await put(root, "docs/a.txt", aged(400 * DAY), "the walked file");
    await put(outside, "docs/a.txt", aged(400 * DAY), "outside's file");
    const parked = path.join(outside, "docs-parked");
    swapDocsDuringTake(parked, path.join(outside, "docs"));
    const report = await clean(byModified("1y"));
    expect(report).toMatchObject({ deleted: 0, items: [], errors: [{ path: "/docs/a.txt", code: 4173 }] });
    // Nothing from outside in the storage's folder: the walked file alone, as it was.
    expect(await readdir(path.join(root, "docs"))).toEqual(["a.txt"]);
    expect(await readFile(path.join(root, "docs/a.txt"), "utf8")).toBe("the walked file");
    const held = /\((\/.*)\)$/.exec(report.errors[0]!.message)?.[1];
    expect(held).toContain(path.join(root, ".ferry-tmp", "autoclean"));
    expect(await readFile(held!, "utf8")).toBe("outside's file");
    // Its origin unknown, no later run puts it anywhere or deletes it.
    fsSeams.rename = null;
    expect(await clean(byModified("1y"))).toMatchObject({ deleted: 1, items: [{ path: "/docs/a.txt" }], errors: [] });
    expect(await readFile(held!, "utf8")).toBe("outside's file");
  });

  it("a file whose move failed while a folder on its path was swapped for a link stays held, and the error says why and where", async () => {
    const other = await mkdtemp("/dev/shm/ferry-autoclean-");
    try {
      await put(root, "docs/a.txt", aged(400 * DAY), "the walked file");
      const moved = path.join(outside, "docs");
      const report = await clean(byModified("1y", other), {
        afterCopy: () => {
          renameSync(path.join(root, "docs"), moved);
          symlinkSync(moved, path.join(root, "docs"));
          throw Object.assign(new Error("input/output error"), { code: "EIO" });
        },
      });
      expect(report).toMatchObject({ moved: 0, errors: [{ path: "/docs/a.txt", code: 4173, message: expect.stringContaining("EIO: input/output error") }] });
      const held = /\((\/.*)\)$/.exec(report.errors[0]!.message)?.[1];
      expect(held).toContain(path.join(root, ".ferry-tmp", "autoclean"));
      expect(await readFile(held!, "utf8")).toBe("the walked file");
      // Not put back through the link: nothing outside changed.
      expect(await readdir(moved)).toEqual([]);
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });

  it("a folder the run cannot read is left with an error; the run goes on with the rest", async () => {
    await put(root, "a-locked/old.txt", aged(400 * DAY));
    await put(root, "b/old.txt", aged(400 * DAY));
    fsSeams.readdir = (folder) => {
      if (folder === path.join(root, "a-locked")) throw Object.assign(new Error(`EACCES: permission denied, scandir '${folder}'`), { code: "EACCES" });
    };
    const report = await clean(byModified("1y"));
    expect(report).toMatchObject({ deleted: 1, items: [{ path: "/b/old.txt" }], errors: [{ path: "/a-locked", code: 4173, message: `EACCES: permission denied, scandir '${path.join(root, "a-locked")}'` }] });
    expect(await exists(path.join(root, "a-locked/old.txt"))).toBe(true);
  });

  it("a file used between the walk and its move is checked again and left", async () => {
    await put(root, "a.txt", aged(50 * DAY));
    const b = await put(root, "b.txt", aged(50 * DAY));
    await put(root, "c.txt", aged(50 * DAY));
    // Right after a.txt went, someone writes to b.txt (the walk had seen it old).
    const report = await clean(byModified("1m"), { onItem: (item) => void (item.path === "/a.txt" && utimesSync(b, NOW)) });
    expect(report).toMatchObject({ deleted: 2, skippedChanged: 1 });
    expect(report.items.map((i) => i.path)).toEqual(["/a.txt", "/c.txt"]);
    expect(await exists(b)).toBe(true);
  });

  it("a run is bounded: past maxFiles it stops and the next run goes on", async () => {
    for (let i = 0; i < 5; i++) await put(root, `f${i}.txt`, aged(10 * DAY));
    const first = await clean(byModified("7d"), { maxFiles: 3 });
    expect(first).toMatchObject({ deleted: 3, truncated: true });
    const second = await clean(byModified("7d"), { maxFiles: 3 });
    expect(second).toMatchObject({ deleted: 2, truncated: false });
    const limited = await clean(byModified("7d"), { limits: { maxDepth: 64, maxEntries: 1 } });
    expect(limited.truncated).toBe(false);
    await put(root, "x/y.txt", aged(10 * DAY));
    await put(root, "z.txt", aged(10 * DAY));
    expect(await clean(byModified("7d"), { limits: { maxDepth: 64, maxEntries: 1 } })).toMatchObject({ truncated: true });
  });

  it("a storage whose folder is gone fails the run (StoragePathLost)", async () => {
    await expect(runClean({ root: path.join(dir, "gone"), policy: byModified("7d"), now: NOW, inUse: createInUse() })).rejects.toMatchObject({ errorName: "StoragePathLost" });
  });
});

/** Sets a file's times to `ms` at once (inside a synchronous callback). */
function utimesSync(file: string, ms: number) {
  setTimesNow(file, ms / 1000, ms / 1000);
}

describe("runs and the schedule", () => {
  class Clock {
    t = NOW;
    now = () => this.t;
  }

  function setup(policy: CleanPolicy | null, options: { maxFiles?: number; maxEntries?: number } = {}) {
    const clock = new Clock();
    const logged: OperationEntry[] = [];
    const target: CleanTarget = { id: 7, name: "Archive", root, policy };
    const autoClean = createAutoClean({
      clock,
      targets: async () => [target],
      target: async (id) => {
        if (id !== 7) throw new Error("unknown");
        return target;
      },
      inUse: filesInUse,
      log: { recordOperation: (e) => logged.push(e) },
      maxFiles: options.maxFiles,
      limits: options.maxEntries ? { maxDepth: 64, maxEntries: options.maxEntries } : undefined,
    });
    let tick: (() => void) | null = null;
    let cleared = false;
    const schedule = startAutoCleanSchedule({
      autoClean,
      clock,
      intervalMs: DAY,
      timers: { setInterval: (run) => ((tick = run), {}), clearInterval: () => (cleared = true) },
      log: { warn: () => undefined },
    });
    return { clock, logged, target, autoClean, schedule, timerTick: () => tick!(), cleared: () => cleared };
  }

  it("a run whose lease cannot be renewed (the database away from this engine) stops before another engine could take the storage over", async () => {
    const warned: string[] = [];
    const base = memoryLeases();
    // The database answers this engine's renewals with errors; a crashed run's folder is looked up slowly.
    const leases = {
      ...base,
      renew: () => Promise.reject(new Error("connection terminated")),
      isLive: async (runId: string) => {
        await new Promise((resolve) => setTimeout(resolve, 400));
        return base.isLive(runId);
      },
    };
    const target: CleanTarget = { id: 7, name: "Archive", root, policy: byModified("1y") };
    const autoClean = createAutoClean({
      clock: { now: () => NOW },
      targets: async () => [target],
      target: async () => target,
      inUse: filesInUse,
      log: { recordOperation: () => undefined },
      leases,
      heartbeatMs: 20,
      renewWithinMs: 100,
      warn: (_obj, msg) => warned.push(msg),
    });
    const crashed = path.join(root, ".ferry-tmp/autoclean", randomUUID());
    await put(crashed, "docs/a.txt", aged(400 * DAY), "a's bytes");
    await put(root, "old.txt", aged(400 * DAY));
    const report = await autoClean.run(7, {}, { kind: "admin", userId: 1 });
    // Stopped: the crashed run's file stays held for the next run, the old file is not taken.
    expect(report).toMatchObject({ truncated: true, deleted: 0, moved: 0 });
    expect(await exists(path.join(crashed, "docs/a.txt"))).toBe(true);
    expect(await exists(path.join(root, "docs/a.txt"))).toBe(false);
    expect(await exists(path.join(root, "old.txt"))).toBe(true);
    expect(warned).toContain("auto-clean: the lease could not be renewed");
    await autoClean.close();
  });

  it("a run's answer stands when giving the lease up fails (the database away at its end); reading the database failing before the run is no run", async () => {
    const warned: string[] = [];
    const released: { finishedAt: number | null }[] = [];
    const target: CleanTarget = { id: 7, name: "Archive", root, policy: byModified("1y") };
    const service = (failing: { release?: boolean; state?: boolean }) => {
      const base = memoryLeases();
      const leases = {
        ...base,
        release: async (id: number, runId: string, outcome: { finishedAt: number | null; resumeAt?: string | null }) => {
          released.push(outcome);
          if (failing.release) throw new Error("connection terminated");
          return base.release(id, runId, outcome);
        },
        state: async (id: number) => {
          if (failing.state) throw new Error("connection terminated");
          return base.state(id);
        },
      };
      return createAutoClean({ clock: { now: () => NOW }, targets: async () => [target], target: async () => target, inUse: filesInUse, log: { recordOperation: () => undefined }, leases, warn: (_obj, msg) => warned.push(msg) });
    };
    await put(root, "old.txt", aged(400 * DAY));
    const releaseFails = service({ release: true });
    expect(await releaseFails.run(7, {}, { kind: "admin", userId: 1 })).toMatchObject({ deleted: 1 });
    expect(warned).toEqual(["auto-clean: the lease could not be given up", "auto-clean: the lease could not be given up"]);
    await releaseFails.close();
    const stateFails = service({ state: true });
    await expect(stateFails.run(7, {}, { kind: "admin", userId: 1 })).rejects.toThrow("connection terminated");
    expect(released.at(-1)).toEqual({ finishedAt: null });
    await stateFails.close();
  });

  it("runs each storage once per interval by the engine's clock, and logs what it moved", async () => {
    const recycle = path.join(dir, "recycle");
    const s = setup(byModified("7d", recycle));
    await put(root, "old-1.txt", aged(8 * DAY));

    // The first scheduled run comes one interval after the start.
    await s.schedule.tick();
    expect(await exists(path.join(root, "old-1.txt"))).toBe(true);
    expect(await s.schedule.nextRunAt(7)).toBe(NOW + DAY);
    s.clock.t = NOW + DAY - 1;
    await s.schedule.tick();
    expect(s.autoClean.runs(7)).toEqual([]);

    s.clock.t = NOW + DAY;
    await s.schedule.tick();
    expect(await exists(path.join(root, "old-1.txt"))).toBe(false);
    expect(await exists(path.join(recycle, "old-1.txt"))).toBe(true);
    expect(s.autoClean.runs(7)).toMatchObject([{ trigger: "schedule", moved: 1, dryRun: false, cleanBy: "modified", cleanAge: "7d", recyclePath: recycle }]);
    expect(s.logged).toEqual([
      { userId: null, account: "auto-clean", role: "admin", kind: "autoclean_recycle", target: "Archive:/old-1.txt", detail: `→ ${path.join(recycle, "old-1.txt")}; by modified, older than 7d` },
      expect.objectContaining({ kind: "autoclean_run", target: "Archive", detail: expect.stringContaining("moved 1, deleted 0") }),
    ]);

    // Not again until one interval after that run; the timer's tick is the same pass.
    await put(root, "old-2.txt", aged(8 * DAY));
    s.clock.t = NOW + 2 * DAY - 1;
    s.timerTick();
    await s.schedule.tick();
    expect(await exists(path.join(root, "old-2.txt"))).toBe(true);
    s.clock.t = NOW + 2 * DAY;
    s.timerTick();
    await s.schedule.tick();
    expect(await exists(path.join(root, "old-2.txt"))).toBe(false);
    expect(s.autoClean.runs(7)).toHaveLength(2);
    await s.schedule.stop();
    expect(s.cleared()).toBe(true);
  });

  it("a policy turned on or changed while the engine runs waits a whole interval from then: time for a dry run first", async () => {
    const s = setup(null);
    await put(root, "old.txt", aged(400 * DAY));
    await s.schedule.tick();
    // Turned on ten days after the start: not due at once, but one interval after the pass that saw it.
    s.clock.t = NOW + 10 * DAY;
    s.target.policy = byModified("7d", null);
    await s.schedule.tick();
    expect(await exists(path.join(root, "old.txt"))).toBe(true);
    expect(await s.schedule.nextRunAt(7)).toBe(NOW + 11 * DAY);
    s.clock.t = NOW + 11 * DAY;
    await s.schedule.tick();
    expect(await exists(path.join(root, "old.txt"))).toBe(false);
    // Made stricter after that run: the run under the old policy does not count.
    await put(root, "old-2.txt", aged(400 * DAY));
    s.clock.t = NOW + 11 * DAY + 1000;
    s.target.policy = byModified("1y", null);
    await s.schedule.tick();
    s.clock.t = NOW + 12 * DAY;
    await s.schedule.tick();
    expect(await exists(path.join(root, "old-2.txt"))).toBe(true);
    s.clock.t = NOW + 12 * DAY + 1000;
    await s.schedule.tick();
    expect(await exists(path.join(root, "old-2.txt"))).toBe(false);
    await s.schedule.stop();
  });

  it("a symbolic link planted in the recycle path is never followed: the run fails, says why in the log, and moves nothing through it", async () => {
    const recycle = path.join(dir, "recycle");
    const s = setup(byModified("7d", recycle));
    await put(root, "users/alice/old.txt", aged(8 * DAY), "alice's");
    await mkdir(path.join(outside, "planted"));
    await mkdir(recycle);
    await symlink(path.join(outside, "planted"), path.join(recycle, "users"));

    await expect(s.autoClean.run(7, { dryRun: true }, { kind: "admin", userId: 1 })).rejects.toMatchObject({ errorName: "PathFormatError" });
    await expect(s.autoClean.run(7, {}, { kind: "admin", userId: 1 })).rejects.toMatchObject({ errorName: "PathFormatError", data: { path: path.join(recycle, "users") } });
    expect(await readdir(path.join(outside, "planted"))).toEqual([]);
    expect(await readFile(path.join(root, "users/alice/old.txt"), "utf8")).toBe("alice's");
    expect(s.autoClean.runs(7)).toMatchObject([{ failed: "PathFormatError", moved: 0 }]);
    expect(s.logged).toEqual([
      expect.objectContaining({ kind: "autoclean_run", result: "failed", code: 4156, detail: `by modified, older than 7d; failed (PathFormatError); the recycle path holds a symbolic link: ${path.join(recycle, "users")}` }),
    ]);
    // With the link gone, the next run moves the file.
    await rm(path.join(recycle, "users"));
    expect(await s.autoClean.run(7, {}, { kind: "admin", userId: 1 })).toMatchObject({ moved: 1 });
    await s.schedule.stop();
  });

  it("a storage with auto-clean off is never run by the schedule; a dry run may try a policy", async () => {
    const s = setup(null);
    await put(root, "old.txt", aged(400 * DAY));
    s.clock.t = NOW + 10 * DAY;
    await s.schedule.tick();
    expect(await exists(path.join(root, "old.txt"))).toBe(true);
    await expect(s.autoClean.run(7, { dryRun: false }, { kind: "admin", userId: 1 })).rejects.toMatchObject({ errorName: "InvalidOperation" });
    const dry = await s.autoClean.run(7, { dryRun: true, cleanBy: "modified", cleanAge: "1y" }, { kind: "admin", userId: 1 });
    expect(dry).toMatchObject({ dryRun: true, deleted: 1, items: [{ path: "/old.txt", action: "delete" }] });
    // A real run follows the saved settings only.
    await expect(s.autoClean.run(7, { dryRun: false, cleanBy: "modified" }, { kind: "admin", userId: 1 })).rejects.toMatchObject({ errorName: "InvalidParameter" });
    expect(s.logged).toEqual([]);
    expect(await exists(path.join(root, "old.txt"))).toBe(true);
    await s.schedule.stop();
  });

  it("a run stopped by the walk limits is followed by one that walks on from there, round to the beginning: old files past the limit are reached", async () => {
    const s = setup(byModified("7d"), { maxEntries: 4 });
    for (const folder of ["a", "b"]) for (const n of [1, 2, 3]) await put(root, `${folder}/${n}.txt`, aged(DAY));
    await put(root, "c/old.txt", aged(8 * DAY));
    const runNow = () => s.autoClean.run(7, {}, { kind: "admin", userId: 1 });
    // a, a/1, a/2, a/3: the fifth entry (b) is past the limit; then b and its files; then c.
    expect(await runNow()).toMatchObject({ truncated: true, deleted: 0 });
    expect(await runNow()).toMatchObject({ truncated: true, deleted: 0 });
    expect(await exists(path.join(root, "c/old.txt"))).toBe(true);
    // A dry run lists what the next run takes, from the same place.
    expect(await s.autoClean.run(7, { dryRun: true }, { kind: "admin", userId: 1 })).toMatchObject({ items: [{ path: "/c/old.txt" }] });
    expect(await runNow()).toMatchObject({ truncated: true, deleted: 1, items: [{ path: "/c/old.txt" }] });
    expect(await exists(path.join(root, "c/old.txt"))).toBe(false);
    // That run went on round the end into a (up to a/2): the next one takes a file there.
    await put(root, "a/old.txt", aged(8 * DAY));
    expect(await runNow()).toMatchObject({ deleted: 1, items: [{ path: "/a/old.txt" }] });
    await s.schedule.stop();
  });

  it("the walk's order is the same on every run: a resumed walk ends where it began, each entry looked at once", async () => {
    for (const rel of ["a/x.txt", "a/y/z.txt", "b.txt", "c/d/e.txt"]) await put(root, rel, aged(8 * DAY));
    const dry = (resumeAt: string | null) => clean(byModified("7d"), { dryRun: true, resumeAt });
    expect((await dry(null)).items.map((i) => i.path)).toEqual(["/a/x.txt", "/a/y/z.txt", "/b.txt", "/c/d/e.txt"]);
    expect((await dry("/a/y")).items.map((i) => i.path)).toEqual(["/a/y/z.txt", "/b.txt", "/c/d/e.txt", "/a/x.txt"]);
    expect((await dry("/b.txt")).items.map((i) => i.path)).toEqual(["/b.txt", "/c/d/e.txt", "/a/x.txt", "/a/y/z.txt"]);
    // A resume point that is gone: the walk starts at what follows it.
    expect((await dry("/a/w")).items.map((i) => i.path)).toEqual(["/a/x.txt", "/a/y/z.txt", "/b.txt", "/c/d/e.txt"]);
    expect(await dry("/bb")).toMatchObject({ stoppedAt: null, items: [{ path: "/c/d/e.txt" }, { path: "/a/x.txt" }, { path: "/a/y/z.txt" }, { path: "/b.txt" }] });
    // Stopped by the limits in the second part: the next walk starts there.
    expect(await clean(byModified("7d"), { dryRun: true, resumeAt: "/c", limits: { maxDepth: 64, maxEntries: 5 } })).toMatchObject({ truncated: true, stoppedAt: "/a/y" });
  });

  it("one run at a time per storage: a second run now answers the running one; stop ends a run between two files", async () => {
    const s = setup(byModified("7d"));
    for (let i = 0; i < 50; i++) await put(root, `f${String(i).padStart(2, "0")}.txt`, aged(8 * DAY));
    const a = s.autoClean.run(7, {}, { kind: "admin", userId: 1 });
    const b = s.autoClean.run(7, {}, { kind: "admin", userId: 1 });
    expect(s.autoClean.isRunning(7)).toBe(true);
    const [ra, rb] = await Promise.all([a, b]);
    expect(rb).toBe(ra);
    expect(ra.deleted).toBe(50);
    expect(s.autoClean.runs(7)).toHaveLength(1);
    expect(s.logged.filter((e) => e.kind === "autoclean_run")).toHaveLength(1);

    for (let i = 0; i < 50; i++) await put(root, `g${String(i).padStart(2, "0")}.txt`, aged(8 * DAY));
    const running = s.autoClean.run(7, {}, { kind: "admin", userId: 1 });
    await s.schedule.stop();
    const stopped = await running;
    expect(stopped.truncated).toBe(true);
    expect(stopped.deleted).toBeLessThan(50);
    await expect(s.autoClean.run(7, {}, { kind: "admin", userId: 1 })).rejects.toMatchObject({ errorName: "InvalidOperation" });
  });
});

describe("in the engine: the admin API, a download held open, the operation log, the schedule", () => {
  let t: TestEngine;
  let admin: string;
  let alice: Awaited<ReturnType<TestEngine["createUser"]>>;
  let files: FileClient;
  let home: string;
  let recycle: string;

  /** A file in alice's home last modified (and accessed) `days` before the engine's clock. */
  const putOld = async (rel: string, days: number, content: string | Buffer = rel) => {
    const file = path.join(home, rel);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, content);
    const at = (t.clock.now() - days * DAY) / 1000;
    await utimes(file, at, at);
    return file;
  };
  const setClean = (values: { clean_by: string; clean_age?: string; recycle_path?: string }) =>
    t.engine.services.db.kysely.updateTable("storages").set(values).where("id", "=", 1).execute();
  const run = (body: Record<string, unknown>, token = admin) => t.call("POST", "/api/admin/storages/1/autoclean/run", { token, body });

  beforeAll(async () => {
    t = await startTestEngine();
    // See AHEAD: the files' mtimes must lie after the real now (their ctime).
    t.clock.advance(AHEAD);
    admin = await t.adminToken();
    alice = await t.createUser("alice", { permission: PERMISSION_FULL });
    files = await connectFiles(t.fileUrl, alice.socketToken);
    const space = await t.engine.services.spaces.open(alice.id, 0);
    home = path.join(t.engine.services.spaces.root, space.home);
    recycle = path.join(t.dataDir, "recycle");
  });
  afterAll(async () => {
    await files?.close();
    await t?.stop();
  });

  it("is the administrator's only", async () => {
    for (const [method, url] of [
      ["POST", "/api/admin/storages/1/autoclean/run"],
      ["GET", "/api/admin/storages/1/autoclean/runs"],
    ] as const) {
      expect((await t.call(method, url, { token: alice.token, body: method === "POST" ? { dryRun: true } : undefined })).body).toMatchObject({ code: 1008, data: null });
      expect((await t.call(method, url, { body: method === "POST" ? { dryRun: true } : undefined })).body.code).toBe(1009);
    }
  });

  it("refuses an unknown storage (4004), a storage whose auto-clean is off (4104), a recycle path holding the storage (4156)", async () => {
    expect((await t.call("POST", "/api/admin/storages/99/autoclean/run", { token: admin, body: {} })).body.code).toBe(4004);
    expect((await t.call("GET", "/api/admin/storages/99/autoclean/runs", { token: admin })).body.code).toBe(4004);
    expect((await run({})).body.code).toBe(4104);
    expect((await run({ dryRun: true, cleanBy: "modified", recyclePath: t.dataDir })).body.code).toBe(4156);
    expect((await run({ dryRun: false, cleanBy: "modified" })).body.code).toBe(4102);
  });

  it("saving a recycle path checks it by real paths (4156): not a link from outside into the storage's folder", async () => {
    const patch = (recyclePath: string) => t.call("PATCH", "/api/admin/storages/1", { token: admin, body: { recyclePath } });
    const link = path.join(t.dataDir, "bin-link");
    await mkdir(path.join(home, "bin"), { recursive: true });
    await symlink(path.join(home, "bin"), link);
    expect((await patch(link)).body.code).toBe(4156);
    expect((await patch(path.join(link, "deeper"))).body.code).toBe(4156);
    expect((await patch(t.engine.services.spaces.root)).body.code).toBe(4156);
    expect((await patch(recycle)).body).toMatchObject({ code: 200, data: { recyclePath: recycle } });
    await rm(link);
    await rm(path.join(home, "bin"), { recursive: true });
  });

  it("a download held open mid-stream is skipped; a dry run lists exactly what run now does; each move is in the operation log", async () => {
    await setClean({ clean_by: "modified", clean_age: "1m", recycle_path: recycle });
    await putOld("/docs/old.txt", 31, "old words");
    await putOld("/docs/fresh.txt", 29);
    const movie = await putOld("/movie.bin", 400, Buffer.alloc(32 * 1024 * 1024, 7));
    const { url } = await files.ok("download", { groupId: 0, paths: ["/movie.bin"] });
    const controller = new AbortController();
    const res = await fetch(t.fileUrl + url, { signal: controller.signal });
    const reader = res.body!.getReader();
    expect((await reader.read()).value!.length).toBeGreaterThan(0);

    const dry = await run({ dryRun: true });
    expect(dry.body.code).toBe(200);
    expect(dry.body.data).toMatchObject({ dryRun: true, moved: 1, skippedInUse: 1, items: [{ path: "/users/alice/docs/old.txt", action: "recycle", to: path.join(recycle, "users/alice/docs/old.txt") }] });
    expect(await exists(path.join(home, "docs/old.txt"))).toBe(true);

    const real = await run({});
    expect(real.body.data).toMatchObject({ dryRun: false, trigger: "admin", moved: 1, skippedInUse: 1, errors: [] });
    expect(real.body.data.items).toEqual(dry.body.data.items);
    expect(await readFile(path.join(recycle, "users/alice/docs/old.txt"), "utf8")).toBe("old words");
    expect(await exists(path.join(home, "docs/fresh.txt"))).toBe(true);
    expect(await exists(movie)).toBe(true);

    // The download ends; the next run takes the file.
    controller.abort();
    await reader.closed.catch(() => undefined);
    await expect.poll(async () => (await run({ dryRun: true })).body.data.skippedInUse, { timeout: 10_000 }).toBe(0);
    expect((await run({})).body.data).toMatchObject({ moved: 1, skippedInUse: 0, items: [{ path: "/users/alice/movie.bin" }] });
    expect(await exists(movie)).toBe(false);

    const runs = (await t.call("GET", "/api/admin/storages/1/autoclean/runs", { token: admin })).body.data;
    expect(runs).toMatchObject({ running: false, list: [{ moved: 1, skippedInUse: 0 }, { moved: 1, skippedInUse: 1 }] });
    expect(runs.nextRunAt).toBe(runs.list[0].finishedAt + 86_400_000);

    const logged = (await t.call("GET", "/api/admin/logs?kind=autoclean_recycle&order=asc", { token: admin })).body.data.list;
    expect(logged.map((e: { target: string; detail: string; account: string }) => [e.account, e.target, e.detail])).toEqual([
      ["admin", "Local:/users/alice/docs/old.txt", `→ ${path.join(recycle, "users/alice/docs/old.txt")}; by modified, older than 1m`],
      ["admin", "Local:/users/alice/movie.bin", `→ ${path.join(recycle, "users/alice/movie.bin")}; by modified, older than 1m`],
    ]);
    const summaries = (await t.call("GET", "/api/admin/logs?kind=autoclean_run", { token: admin })).body.data.list;
    expect(summaries).toHaveLength(2);
    expect(summaries[1].detail).toContain("moved 1, deleted 0, 9 bytes, in use 1");
  }, 60_000);

  it("the schedule cleans by the engine's clock, once per FERRY_AUTOCLEAN_INTERVAL", async () => {
    await setClean({ clean_by: "accessed", clean_age: "7d", recycle_path: "" });
    const schedule = autoCleanScheduleOf(t.engine.services)!;
    const lastRun = (await t.call("GET", "/api/admin/storages/1/autoclean/runs", { token: admin })).body.data.list[0].finishedAt as number;
    const old = await putOld("/stale.log", 8);
    t.clock.advance(lastRun + DAY - 1 - t.clock.now());
    await schedule.tick();
    expect(await exists(old)).toBe(true);
    t.clock.advance(1);
    await schedule.tick();
    expect(await exists(old)).toBe(false);
    // A day later on the engine's clock: the earlier access token has expired.
    admin = await t.adminToken();
    const runs = (await t.call("GET", "/api/admin/storages/1/autoclean/runs", { token: admin })).body.data;
    // The earlier test's fresh.txt (29 days) is old by this policy too.
    expect(runs.list[0]).toMatchObject({ trigger: "schedule", deleted: 2, cleanBy: "accessed", cleanAge: "7d", recyclePath: "" });
    expect(await exists(path.join(home, "docs/fresh.txt"))).toBe(false);
    const deleted = (await t.call("GET", "/api/admin/logs?kind=autoclean_delete&order=asc", { token: admin })).body.data.list;
    expect(deleted).toMatchObject([
      { account: "auto-clean", role: "admin", target: "Local:/users/alice/docs/fresh.txt" },
      { account: "auto-clean", role: "admin", target: "Local:/users/alice/stale.log" },
    ]);
  });

  it("an age the database holds that is no known one turns auto-clean off for the storage, not some default age", async () => {
    await setClean({ clean_by: "modified", clean_age: "2w", recycle_path: "" });
    const old = await putOld("/very-old.txt", 400);
    expect((await run({})).body.code).toBe(4104);
    const schedule = autoCleanScheduleOf(t.engine.services)!;
    t.clock.advance(2 * DAY);
    admin = await t.adminToken();
    await schedule.tick();
    expect(await exists(old)).toBe(true);
    await setClean({ clean_by: "off", clean_age: "1m" });
  });
});

describe("several engines on one database", () => {
  let t: TestEngine;
  let other: Engine;
  let admin: string;
  let home: string;
  let storageRoot: string;

  const startOther = (env: Record<string, string> = {}) =>
    startEngine(loadConfig({ FERRY_DATA_DIR: t.dataDir, DATABASE_URL: t.databaseUrl, FERRY_HOST: "127.0.0.1", FERRY_API_PORT: "0", FERRY_FILE_PORT: "0", FERRY_HASHID_SALT: SALT, FERRY_LOG_LEVEL: "silent", ...env }), t.clock);
  const on = async (engine: Engine, method: string, p: string, body?: unknown) => {
    const res = await fetch(engine.apiUrl + p, { method, headers: { authorization: `Bearer ${admin}`, ...(body ? { "content-type": "application/json" } : {}) }, body: body ? JSON.stringify(body) : undefined });
    return (await res.json()) as { code: number; data: any };
  };
  const runOn = (engine: Engine) => on(engine, "POST", "/api/admin/storages/1/autoclean/run", {});
  const putOld = async (rel: string, days: number, content = rel) => {
    const file = path.join(home, rel);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, content);
    const at = (t.clock.now() - days * DAY) / 1000;
    await utimes(file, at, at);
    return file;
  };
  const leases = () => (t.engine.services.db.kysely as any).selectFrom("autoclean_leases");

  async function start(env: Record<string, string> = {}) {
    t = await startTestEngine(env);
    t.clock.advance(AHEAD);
    admin = await t.adminToken();
    const alice = await t.createUser("alice", { permission: PERMISSION_FULL });
    const space = await t.engine.services.spaces.open(alice.id, 0);
    storageRoot = t.engine.services.spaces.root;
    home = path.join(storageRoot, space.home);
    await t.engine.services.db.kysely.updateTable("storages").set({ clean_by: "modified", clean_age: "1m", recycle_path: "" }).where("id", "=", 1).execute();
    other = await startOther(env);
  }
  async function stop() {
    await other?.stop();
    await t?.stop();
  }

  describe("the lease", () => {
    beforeAll(() => start());
    afterAll(() => stop());

    it("a run holds the storage on every engine: Run now elsewhere answers 4621 and the storage shows running there; after the run it runs", async () => {
      const old = await putOld("/docs/old.txt", 400);
      // The first engine's run stops right after it took the file into its run folder.
      let held!: () => void;
      const holding = new Promise<void>((resolve) => (held = resolve));
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      fsSeams.rename = async (from, to, real) => {
        await real();
        if (to.includes(`${path.sep}.ferry-tmp${path.sep}autoclean${path.sep}`)) {
          held();
          await gate;
        }
      };
      const first = runOn(t.engine);
      await holding;
      expect(await exists(old)).toBe(false);
      expect(await runOn(other)).toMatchObject({ code: 4621, data: null });
      expect((await on(other, "GET", "/api/admin/storages/1/autoclean/runs")).data.running).toBe(true);
      // The lease's run id names the run folder holding the file.
      const lease = await leases().selectAll().where("storage_id", "=", 1).executeTakeFirstOrThrow();
      expect(await readdir(path.join(storageRoot, ".ferry-tmp/autoclean"))).toEqual([lease.run_id]);
      release();
      expect(await first).toMatchObject({ code: 200, data: { deleted: 1, id: lease.run_id } });
      expect((await on(other, "GET", "/api/admin/storages/1/autoclean/runs")).data.running).toBe(false);
      expect(await runOn(other)).toMatchObject({ code: 200, data: { deleted: 0 } });
    });

    it("recovery leaves the run folder of a run whose lease is live on another engine, and finishes it once that lease lapsed", async () => {
      const now = t.clock.now();
      // Another engine runs a storage over the same folder (id 99) with run `live`; `crashed` has no lease.
      const live = randomUUID();
      const crashed = randomUUID();
      await (t.engine.services.db.kysely as any).insertInto("autoclean_leases").values({ storage_id: 99, run_id: live, instance_id: "elsewhere", heartbeat_at: now, last_run_at: null, resume_at: "" }).execute();
      const holdingFolder = path.join(storageRoot, ".ferry-tmp/autoclean");
      const rel = path.relative(storageRoot, home);
      await put(path.join(holdingFolder, live), path.join(rel, "live.txt"), { atime: now - 400 * DAY, mtime: now - 400 * DAY }, "being moved elsewhere");
      await put(path.join(holdingFolder, crashed), path.join(rel, "crashed.txt"), { atime: now - 400 * DAY, mtime: now - 400 * DAY }, "left by a crash");
      const report = await runOn(other);
      expect(report).toMatchObject({ code: 200, data: { errors: [] } });
      // The crashed run's file went back to its place, and is old: deleted by the walk.
      expect(report.data.items.map((i: CleanItem) => i.path)).toEqual([`/${rel}/crashed.txt`]);
      expect(await readFile(path.join(holdingFolder, live, rel, "live.txt"), "utf8")).toBe("being moved elsewhere");
      expect(await readdir(holdingFolder)).toEqual([live]);
      // That engine stopped renewing its heartbeat a minute ago: its run is dead, its file finished.
      await (t.engine.services.db.kysely as any).updateTable("autoclean_leases").set({ heartbeat_at: now - LEASE_STALE_MS - 1 }).where("storage_id", "=", 99).execute();
      const after = await runOn(t.engine);
      expect(after.data.items.map((i: CleanItem) => i.path)).toEqual([`/${rel}/live.txt`]);
      expect(await exists(holdingFolder)).toBe(false);
    });

    it("the schedule's last run is the database's: a run on one engine moves the next run on every engine", async () => {
      const schedule = autoCleanScheduleOf(other.services)!;
      const last = (await runOn(t.engine)).data.finishedAt as number;
      t.clock.advance(12 * 60 * 60 * 1000);
      admin = await t.adminToken();
      const ran = await runOn(t.engine);
      expect(ran.code).toBe(200);
      const finished = ran.data.finishedAt as number;
      expect(finished).toBeGreaterThan(last);
      expect((await on(other, "GET", "/api/admin/storages/1/autoclean/runs")).data.nextRunAt).toBe(finished + DAY);
      // A day after the earlier run, but not after this one: the other engine does not run it.
      const old = await putOld("/later.txt", 400);
      t.clock.advance(last + DAY - t.clock.now());
      await schedule.tick();
      expect(await exists(old)).toBe(true);
      t.clock.advance(finished + DAY - t.clock.now());
      await schedule.tick();
      expect(await exists(old)).toBe(false);
      admin = await t.adminToken();
      const scheduled = (await on(other, "GET", "/api/admin/storages/1/autoclean/runs")).data.list[0];
      expect(scheduled).toMatchObject({ trigger: "schedule", deleted: 1 });
      // And the first engine counts from that run.
      expect((await on(t.engine, "GET", "/api/admin/storages/1/autoclean/runs")).data.nextRunAt).toBe(scheduled.finishedAt + DAY);
    });
  });

  describe("small walk limits", () => {
    beforeAll(() => start({ FERRY_WALK_MAX_ENTRIES: "8" }));
    afterAll(() => stop());

    it("each run walks on from where the last one stopped, whichever engine ran it, and reaches old files past the limit", async () => {
      for (const folder of ["a", "b", "c"]) for (let n = 0; n < 6; n++) await putOld(`/${folder}/young-${n}.txt`, 1);
      const old = await putOld("/d/old.txt", 400);
      let runs = 0;
      while (runs < 10 && (await exists(old))) {
        const report = await runOn(runs % 2 === 0 ? t.engine : other);
        expect(report).toMatchObject({ code: 200, data: { truncated: true } });
        runs++;
      }
      expect(await exists(old)).toBe(false);
      // It took a few runs, the engines taking turns: the place to go on from is the database's.
      expect(runs).toBeGreaterThan(2);
      expect((await leases().select("resume_at").where("storage_id", "=", 1).executeTakeFirstOrThrow()).resume_at).toMatch(/^\/users\/alice/);
    });
  });
});
