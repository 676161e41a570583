import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statfsSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { hostname } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DashboardConnections, DashboardInfo, DashboardLicense, DashboardMetrics, DashboardStatus, DashboardStorage, DashboardSummary, DashboardTuning } from "../../contract/dashboard";
import { VERSION } from "../../server/version";
import { connectFiles, type FileClient } from "../support/file-client";
import { startTestEngine, type TestEngine } from "../support/engine";

// The admin dashboard (docs/admin-api.md, "Dashboard") over HTTP, against the real machine's numbers.
let t: TestEngine;
let admin: string;
const SAMPLE_MS = 200;
beforeAll(async () => {
  t = await startTestEngine({ FERRY_EDITION: "free", FERRY_DASHBOARD_SAMPLE_MS: String(SAMPLE_MS), FERRY_DASHBOARD_WINDOW: "60" });
  admin = await t.adminToken();
});
afterAll(() => t?.stop());

async function get<T>(what: string, token = admin): Promise<T> {
  const reply = await t.call<T>("GET", `/api/admin/dashboard${what}`, { token });
  expect(reply.body.code, `${what}: ${reply.body.message}`).toBe(200);
  return reply.body.data!;
}

/** The samples, once there are more than `count`. */
async function samplesAfter(count: number): Promise<DashboardMetrics> {
  let metrics = await get<DashboardMetrics>("/metrics");
  await expect.poll(async () => (metrics = await get<DashboardMetrics>("/metrics")).points.length, { timeout: 20_000, interval: SAMPLE_MS }).toBeGreaterThan(count);
  return metrics;
}

describe("the dashboard", () => {
  it("answers the administrator only", async () => {
    const user = await t.createUser("dash_user");
    for (const what of ["", "/connections", "/storage", "/license", "/status", "/info", "/metrics", "/tuning"]) {
      expect((await t.call("GET", `/api/admin/dashboard${what}`, { token: user.token })).body.code, what).toBe(1008);
      expect((await t.call("GET", `/api/admin/dashboard${what}`)).body.code, what).toBe(1009);
    }
    for (const action of ["restart", "shutdown"]) {
      expect((await t.call("POST", `/api/admin/dashboard/${action}`, { token: user.token })).body.code).toBe(1008);
    }
  });

  it("counts users online on the web, with a socket, and desktop clients against the free limit", async () => {
    const before = await get<DashboardConnections>("/connections");
    expect(before.clientLimit).toBe(3);
    const a = await t.createUser("dash_web_a");
    const b = await t.createUser("dash_web_b");
    const afterSignIn = await get<DashboardConnections>("/connections");
    expect(afterSignIn.webOnline).toBe(before.webOnline + 2);

    const sockets: FileClient[] = [];
    try {
      sockets.push(await connectFiles(t.fileUrl, a.socketToken));
      expect((await get<DashboardConnections>("/connections")).socketOnline).toBe(before.socketOnline + 1);
      const desktop = await connectFiles(t.fileUrl, null);
      sockets.push(desktop);
      expect((await desktop.cmd("login", { token: b.socketToken, client: { version: "3.2.1" } })).code).toBe(200);
      const now = await get<DashboardConnections>("/connections");
      expect(now.socketOnline).toBe(before.socketOnline + 2);
      expect(now.client_online).toBe(before.client_online + 1);
    } finally {
      await Promise.all(sockets.map((s) => s.close()));
    }
    // Signing out ends a user's web presence.
    await t.call("POST", "/api/user/logout", { token: a.token });
    await expect.poll(async () => (await get<DashboardConnections>("/connections")).socketOnline).toBe(before.socketOnline);
    expect((await get<DashboardConnections>("/connections")).webOnline).toBe(before.webOnline + 1);
  });

  it("reports the storage's filesystem with df's size, used and free bytes", async () => {
    const { disks } = await get<DashboardStorage>("/storage");
    const storageRoot = path.join(t.dataDir, "storage");
    const disk = disks.find((d) => d.paths.includes(storageRoot));
    expect(disk).toBeDefined();
    // The data directory lives on the same filesystem here: one disk naming both.
    expect(disk!.paths).toContain(t.dataDir);
    expect(disks).toHaveLength(1);
    const [size, used, avail] = execFileSync("df", ["-B1", "--output=size,used,avail", storageRoot], { encoding: "utf8" }).trim().split("\n")[1]!.trim().split(/\s+/).map(Number);
    // Other processes write meanwhile: equal within 1% of the disk (or 64 MiB).
    const tolerance = Math.max(64 * 1024 * 1024, size! / 100);
    expect(disk!.total).toBe(size);
    expect(Math.abs(disk!.used - used!)).toBeLessThan(tolerance);
    expect(Math.abs(disk!.free - avail!)).toBeLessThan(tolerance);
  });

  it("reports the filesystem of every local storage the administrator added, once", async () => {
    // /dev/shm is a tmpfs: a filesystem of its own, apart from the data directory's.
    const folder = mkdtempSync("/dev/shm/ferry-dashboard-");
    const token = await t.adminToken();
    const added = await t.call("POST", "/api/admin/storages", { token, body: { name: "Fast disk", provider: "local", path: folder } });
    expect(added.body.code).toBe(200);
    try {
      const { disks } = await get<DashboardStorage>("/storage");
      expect(disks).toHaveLength(2);
      const disk = disks.find((d) => d.paths.includes(folder));
      expect(disk, JSON.stringify(disks)).toBeDefined();
      expect(disk!.paths).not.toContain(t.dataDir);
      expect(disk!.total).toBe(statfsSync(folder).blocks * statfsSync(folder).bsize);
    } finally {
      expect((await t.call("DELETE", `/api/admin/storages/${added.body.data.id}`, { token })).body.code).toBe(200);
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it("tells the edition, the accounts created and the limits", async () => {
    const before = await get<DashboardLicense>("/license");
    expect(before).toMatchObject({ status: "inactivated", edition: "free", source: "default", userLimit: null, clientLimit: 3, expiryDate: null });
    await t.createUser("dash_counted");
    expect((await get<DashboardLicense>("/license")).userCount).toBe(before.userCount + 1);
  });

  it("tells the server's state and main information", async () => {
    const status = await get<DashboardStatus>("/status");
    expect(status).toMatchObject({ state: "running", pid: process.pid, canRestart: false });
    expect(status.startedAt).toBeLessThanOrEqual(Date.now());
    const info = await get<DashboardInfo>("/info");
    expect(info).toMatchObject({
      name: hostname(),
      version: VERSION,
      apiport: Number(new URL(t.url).port),
      no_ssl_port: Number(new URL(t.fileUrl).port),
      ssl_port: null,
      host: "127.0.0.1",
    });
    expect(info.os).toMatch(/Linux/);
    expect(info.cpus).toBeGreaterThan(0);
    const summary = await get<DashboardSummary>("");
    expect(summary.info).toEqual(info);
    expect(summary.status.state).toBe("running");
    // An engine inside another process (this test) cannot restart itself: refused, still running.
    expect((await t.call("POST", "/api/admin/dashboard/restart", { token: admin })).body.code).toBe(4109);
    expect((await t.call("POST", "/api/admin/dashboard/shutdown", { token: admin })).body.code).toBe(4109);
    expect((await get<DashboardStatus>("/status")).state).toBe("running");
  });

  it("keeps a growing CPU series that sees the machine get busy", async () => {
    const first = await samplesAfter(1);
    const later = await samplesAfter(first.points.length);
    expect(later.intervalMs).toBe(SAMPLE_MS);
    const times = later.points.map((p) => p.t);
    expect(times).toEqual([...times].sort((x, y) => x - y));
    for (const p of later.points) {
      expect(p.cpu).toBeGreaterThanOrEqual(0);
      expect(p.cpu).toBeLessThanOrEqual(100);
      expect(p.memory).toBeGreaterThan(0);
    }
    // One core busy for a second is at least a share 1/cores of the machine in the sample that covers it.
    const busyFrom = Date.now();
    while (Date.now() - busyFrom < 1000) Math.sqrt(Math.random());
    const cores = (await get<DashboardInfo>("/info")).cpus;
    const after = await samplesAfter(later.points.length);
    const busy = after.points.filter((p) => p.t >= busyFrom);
    expect(Math.max(...busy.map((p) => p.cpu))).toBeGreaterThanOrEqual(100 / cores / 2);
  });

  it("measures the bytes that cross a network interface", async () => {
    const payload = Buffer.alloc(16 * 1024 * 1024, 7);
    const server = createServer((_req, res) => res.end(payload));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      await samplesAfter(0);
      const from = Date.now();
      let received = 0;
      for (let i = 0; i < 4; i++) received += (await (await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`)).arrayBuffer()).byteLength;
      expect(received).toBe(4 * payload.length);
      // Wait until a sample after the transfer exists, then add up what the loopback received.
      const until = Date.now();
      let metrics = await get<DashboardMetrics>("/metrics");
      await expect.poll(async () => (metrics = await get<DashboardMetrics>("/metrics")).points.at(-1)!.t > until + SAMPLE_MS, { timeout: 20_000, interval: SAMPLE_MS }).toBe(true);
      let counted = 0;
      let previous = metrics.points.findLast((p) => p.t < from)?.t;
      expect(previous).toBeDefined();
      for (const p of metrics.points.filter((q) => q.t >= from)) {
        counted += (p.net.lo?.rx ?? 0) * ((p.t - previous!) / 1000);
        previous = p.t;
      }
      // Every byte sent crossed lo; the engine's own calls (and anything else on this machine) add more.
      expect(counted).toBeGreaterThan(received * 0.95);
      expect(counted).toBeLessThan(received * 4);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

/** A sysctl's value read straight from /proc, not through the doctor's code. */
const proc = (key: string) => readFileSync(path.join("/proc/sys", ...key.split(".")), "utf8").trim();
const MiB = 1024 * 1024;

describe("host tuning (ferry doctor's quick checks)", () => {
  it("answers the checks as /proc and statfs find this machine, with the sysctl lines that fix what is off", async () => {
    const tuning = await get<DashboardTuning>("/tuning");
    expect(tuning.checks.map((c) => c.id)).toEqual(["congestion", "qdisc", "buffers", "open-files", "disk", "clock"]);
    const check = (id: string) => tuning.checks.find((c) => c.id === id)!;

    const congestion = proc("net.ipv4.tcp_congestion_control");
    expect(check("congestion").status).toBe(congestion === "bbr" ? "ok" : "warn");
    expect(check("congestion").found.startsWith(congestion)).toBe(true);
    expect(check("congestion").sysctl).toEqual(congestion === "bbr" ? [] : [{ key: "net.ipv4.tcp_congestion_control", value: "bbr", current: congestion }]);

    const qdisc = proc("net.core.default_qdisc");
    expect(check("qdisc")).toMatchObject({ status: qdisc === "fq" ? "ok" : "warn", found: qdisc });
    expect(check("qdisc").sysctl).toEqual(qdisc === "fq" ? [] : [{ key: "net.core.default_qdisc", value: "fq", current: qdisc }]);

    // Each buffer limit below 32 MiB is raised to 64 MiB; tcp_rmem/tcp_wmem keep their min and default.
    const low: { key: string; value: string; current: string }[] = [];
    for (const key of ["net.core.rmem_max", "net.core.wmem_max"]) if (Number(proc(key)) < 32 * MiB) low.push({ key, value: String(64 * MiB), current: proc(key) });
    for (const key of ["net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"]) {
      const [min, def, max] = proc(key).split(/\s+/);
      if (Number(max) < 32 * MiB) low.push({ key, value: `${min} ${def} ${64 * MiB}`, current: `${min} ${def} ${max}` });
    }
    expect(check("buffers").sysctl).toEqual(low);
    expect(check("buffers").status).toBe(low.length > 0 ? "warn" : "ok");

    // The engine runs in this process here: its open-file limits are this process's.
    const [, soft] = /^Max open files\s+(\S+)/m.exec(readFileSync("/proc/self/limits", "utf8"))!;
    const fileMax = Number(proc("fs.file-max"));
    expect(check("open-files").status).toBe(Number(soft) < 16384 || fileMax < 65536 ? "warn" : "ok");
    expect(check("open-files").found).toContain(`fs.file-max ${fileMax}`);

    const fs = statfsSync(t.dataDir);
    const free = fs.bavail * fs.bsize;
    expect(check("disk").status).toBe(free < 2 * 1024 * MiB || free < fs.blocks * fs.bsize * 0.05 ? "warn" : "ok");
    expect(check("disk").found).toContain(t.dataDir);

    // The quick checks run no child process: the clock is known only from systemd-timesyncd's flag file.
    expect(check("clock").status).toBe(existsSync("/run/systemd/timesync/synchronized") ? "ok" : "unknown");

    expect(tuning.warnings).toBe(tuning.checks.filter((c) => c.status === "warn").length);
    for (const c of tuning.checks) if (c.status !== "warn") expect(c.sysctl, c.id).toEqual([]);
  });

  it("reuses one reading for a minute however often the dashboard asks", async () => {
    const first = await get<DashboardTuning>("/tuning");
    const again = await Promise.all([get<DashboardTuning>("/tuning"), get<DashboardTuning>("/tuning")]);
    expect(again.map((a) => a.checkedAt)).toEqual([first.checkedAt, first.checkedAt]);
  });
});
