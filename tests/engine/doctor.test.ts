import { spawn } from "node:child_process";
import { existsSync, readFileSync, statfsSync } from "node:fs";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { runCli } from "../support/cli";
import { freePort } from "../support/ports";

// Each test starts a CLI or engine process (a few seconds on a busy 2-core machine).
vi.setConfig({ testTimeout: 90_000 });

/**
 * `ferry doctor` on this machine's real settings (docs/doctor.md), run as an operator runs it. The
 * expected values are read here straight from /proc and statfs, not through the doctor's code.
 * Nothing here changes a host setting: `--apply` is only run as a user who may not.
 */

const root = path.resolve(import.meta.dirname, "../..");
const proc = (key: string) => readFileSync(path.join("/proc/sys", ...key.split(".")), "utf8").trim();
const nums = (key: string) => proc(key).split(/\s+/).map(Number);
const MiB = 1024 * 1024;

interface Report {
  checks: { id: string; status: string; found: string; why: string; sysctl: { key: string; value: string; current: string | null }[]; values: Record<string, unknown> }[];
  warnings: number;
  sysctlFile: string | null;
  sysctl: string | null;
  install: string | null;
}

let dir: string;
let dataDir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "ferry-doctor-"));
  dataDir = path.join(dir, "data");
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const doctor = (args: string[]) => runCli(["doctor", ...args], { FERRY_DATA_DIR: dataDir });

describe("ferry doctor on this machine", () => {
  it("reports every check with the values /proc and statfs give, and writes the fixes for root to install", async () => {
    const out = path.join(dir, "ferry-sysctl.conf");
    const run = await doctor(["--json", "--out", out]);
    const report = JSON.parse(run.stdout) as Report;
    const check = (id: string) => report.checks.find((c) => c.id === id)!;
    expect(report.checks.map((c) => c.id)).toEqual(["congestion", "qdisc", "buffers", "open-files", "disk", "clock"]);
    for (const c of report.checks) {
      expect(["ok", "warn", "unknown"]).toContain(c.status);
      expect(c.found.length).toBeGreaterThan(0);
      expect(c.why).toMatch(/\.$/);
    }

    const congestion = proc("net.ipv4.tcp_congestion_control");
    expect(check("congestion").values).toEqual({ current: congestion, available: proc("net.ipv4.tcp_available_congestion_control").split(/\s+/), allowed: proc("net.ipv4.tcp_allowed_congestion_control").split(/\s+/) });
    expect(check("congestion").status).toBe(congestion === "bbr" ? "ok" : "warn");

    const qdisc = proc("net.core.default_qdisc");
    expect(check("qdisc").values).toEqual({ defaultQdisc: qdisc });
    expect(check("qdisc").status).toBe(qdisc === "fq" ? "ok" : "warn");

    const buffers = { rmemMax: Number(proc("net.core.rmem_max")), wmemMax: Number(proc("net.core.wmem_max")), tcpRmem: nums("net.ipv4.tcp_rmem"), tcpWmem: nums("net.ipv4.tcp_wmem") };
    expect(check("buffers").values).toMatchObject(buffers);
    const lowBuffers = [buffers.rmemMax, buffers.wmemMax, buffers.tcpRmem[2]!, buffers.tcpWmem[2]!].filter((v) => v < 32 * MiB).length;
    expect(check("buffers").sysctl).toHaveLength(lowBuffers);

    const limits = /^Max open files\s+(\d+)\s+(\d+)/m.exec(readFileSync("/proc/self/limits", "utf8"))!;
    // Node raises its soft limit to the hard one at start: the child's soft limit is the hard limit.
    expect(check("open-files").values).toMatchObject({ hard: Number(limits[2]), fileMax: Number(proc("fs.file-max")) });

    // The data directory does not exist yet: measured on its nearest existing parent, this test's folder.
    const disk = check("disk").values as { disks: { paths: string[]; measured: string; size: number; free: number }[] };
    expect(disk.disks).toHaveLength(1);
    expect(disk.disks[0]!.paths).toEqual([dataDir, path.join(dataDir, "storage"), path.join(dataDir, "installers")]);
    expect(disk.disks[0]!.measured).toBe(dir);
    const fs = statfsSync(dir);
    expect(disk.disks[0]!.size).toBe(fs.blocks * fs.bsize);
    expect(Math.abs(disk.disks[0]!.free - fs.bavail * fs.bsize)).toBeLessThan(256 * MiB);

    // The clock: yes or no only from a source that answered; here nothing may be guessed.
    const clock = check("clock");
    if (existsSync("/run/systemd/timesync/synchronized")) expect(clock.status).toBe("ok");
    if (clock.status === "unknown") expect(clock.found).toMatch(/^could not be determined: /);

    // Exit code 3 exactly when something is at warn, and the file holds exactly the fixes.
    const warned = report.checks.filter((c) => c.status === "warn").length;
    expect(report.warnings).toBe(warned);
    expect(run.code).toBe(warned > 0 ? 3 : 0);
    const lines = report.checks.flatMap((c) => c.sysctl.map((s) => `${s.key} = ${s.value}`));
    if (lines.length === 0) {
      expect(report.sysctlFile).toBeNull();
      expect(existsSync(out)).toBe(false);
    } else {
      expect(report.sysctlFile).toBe(out);
      expect(report.install).toBe(`install -m 644 ${out} /etc/sysctl.d/60-ferry.conf && sysctl --system`);
      const file = await readFile(out, "utf8");
      expect(file).toBe(report.sysctl);
      expect(file.split("\n").filter((l) => l !== "" && !l.startsWith("#"))).toEqual(lines);
      expect((await stat(out)).mode & 0o777).toBe(0o644);
    }
  });

  it("prints what it found, why, and how to install the fixes", async () => {
    const out = path.join(dir, "text.conf");
    const run = await doctor(["--out", out]);
    for (const title of ["TCP congestion control", "Default queueing discipline", "Socket buffer limits", "Open-file limits", "Free disk of Ferry's storage", "Clock synchronisation"]) expect(run.stdout).toContain(title);
    expect(run.stdout).toContain(`TCP congestion control: ${proc("net.ipv4.tcp_congestion_control")}`);
    if (run.code === 3) expect(run.stdout).toMatch(/\d+ warnings?\./);
    else expect(run.stdout).toContain("No warnings.");
    if (existsSync(out)) expect(run.stdout).toContain(`install -m 644 ${out} /etc/sysctl.d/60-ferry.conf && sysctl --system`);
  });

  it("refuses --apply when not run as root, and changes nothing", async () => {
    const before = ["net.ipv4.tcp_congestion_control", "net.core.default_qdisc", "net.core.rmem_max", "net.core.wmem_max", "net.ipv4.tcp_wmem"].map(proc);
    const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn("setpriv", ["--reuid=nobody", "--regid=nogroup", "--clear-groups", process.execPath, "--import", "tsx", "server/cli/main.ts", "doctor", "--apply"], {
        cwd: root,
        env: { ...process.env, FERRY_DATA_DIR: dataDir, HOME: "/tmp", FERRY_LOG_LEVEL: "silent" },
      });
      let stdout = "";
      let stderr = "";
      child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
      child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
      child.on("error", reject);
      child.on("close", (code) => resolve({ code, stdout, stderr }));
    });
    expect(run.stderr).toContain("doctor --apply changes kernel settings and must be run as root (this is uid 65534): nothing was changed.");
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(["net.ipv4.tcp_congestion_control", "net.core.default_qdisc", "net.core.rmem_max", "net.core.wmem_max", "net.ipv4.tcp_wmem"].map(proc)).toEqual(before);
  });

  it("refuses --out with --apply as a usage error", async () => {
    const run = await doctor(["--apply", "--out", path.join(dir, "x.conf")]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--out does not go with it");
  });
});

describe("the engine's start-up log", () => {
  it("warns once per host setting that is off, and not of those that are fine", async () => {
    const port = await freePort();
    const engineDir = path.join(dir, "engine");
    const child = spawn(process.execPath, ["--import", "tsx", "server/main.ts"], {
      cwd: root,
      env: { ...process.env, FERRY_LOG_LEVEL: "warn", FERRY_DATA_DIR: engineDir, DATABASE_URL: "", FERRY_API_PORT: String(port), FERRY_FILE_PORT: "0", FERRY_HOST: "127.0.0.1", FERRY_ADMIN_PASSWORD: "Doc#Start2026" },
    });
    let output = "";
    child.stdout.on("data", (c: Buffer) => (output += c.toString()));
    child.stderr.on("data", (c: Buffer) => (output += c.toString()));
    try {
      // Started (its first line is printed once it listens).
      await new Promise<void>((resolve, reject) => {
        child.once("exit", () => reject(new Error(`engine exited:\n${output}`)));
        const poll = () => (/Ferry engine http/.test(output) ? resolve() : setTimeout(poll, 100));
        poll();
      });
      const expected = {
        "TCP congestion control": proc("net.ipv4.tcp_congestion_control") !== "bbr",
        "Default queueing discipline": proc("net.core.default_qdisc") !== "fq",
        "Socket buffer limits": [Number(proc("net.core.rmem_max")), Number(proc("net.core.wmem_max")), nums("net.ipv4.tcp_rmem")[2]!, nums("net.ipv4.tcp_wmem")[2]!].some((v) => v < 32 * MiB),
      };
      const warned = Object.entries(expected).filter(([, on]) => on);
      // The checks run beside the start and log all their lines in one go: once the expected ones are
      // there, a line that is not there will not come.
      await new Promise<void>((resolve) => {
        const poll = () => (warned.every(([title]) => output.includes(`host tuning: ${title}`)) ? resolve() : setTimeout(poll, 100));
        poll();
      });
      for (const [title, on] of Object.entries(expected)) expect(output.includes(`host tuning: ${title}`), title).toBe(on);
      // The clock is never reported from a guess at start-up (no child process there).
      expect(output).not.toContain("host tuning: Clock synchronisation");
      // And it serves: the checks never held the start up.
      expect(await fetch(`http://127.0.0.1:${port}/api/openapi.json`).then((r) => r.status)).toBe(200);
    } finally {
      await new Promise<void>((done) => (child.exitCode !== null ? done() : (child.once("exit", () => done()), child.kill("SIGTERM"))));
    }
  });
});
