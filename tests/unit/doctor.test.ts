import { describe, expect, it } from "vitest";
import { evaluate, mergedSysctlFile, parseSysctlFile, type Readings, sysctlFile, sysctlLines, warnings } from "../../server/doctor/checks";
import { openFileLimits } from "../../server/doctor/readings";

/** The doctor's judgement (server/doctor/checks.ts) on made-up readings: what an operator is told and given to install. */

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;

/** A well-tuned host; each test spoils what it checks. */
function tuned(): Readings {
  return {
    congestion: { current: "bbr", available: ["reno", "cubic", "bbr"], allowed: ["reno", "cubic", "bbr"] },
    defaultQdisc: "fq",
    buffers: { rmemMax: 64 * MiB, wmemMax: 64 * MiB, tcpRmem: [4096, 131072, 64 * MiB], tcpWmem: [4096, 16384, 64 * MiB] },
    files: { soft: 65536, hard: 65536, fileMax: 2_000_000 },
    disks: [{ paths: ["/srv/ferry", "/srv/ferry/storage"], measured: "/srv/ferry", dev: 1, size: 1000 * GiB, used: 500 * GiB, free: 500 * GiB }],
    diskErrors: [],
    clock: { synchronized: true, source: "timedatectl: NTPSynchronized=yes" },
  };
}

const byId = (r: Readings) => Object.fromEntries(evaluate(r).map((c) => [c.id, c]));

describe("ferry doctor's checks", () => {
  it("finds nothing to fix on a tuned host and writes no file", () => {
    const checks = evaluate(tuned());
    expect(checks.map((c) => [c.id, c.status])).toEqual([
      ["congestion", "ok"],
      ["qdisc", "ok"],
      ["buffers", "ok"],
      ["open-files", "ok"],
      ["disk", "ok"],
      ["clock", "ok"],
    ]);
    expect(sysctlFile(sysctlLines(checks))).toBeNull();
  });

  it("writes the exact sysctl lines for a stock host (CUBIC, pfifo_fast, 4 MiB buffers, few files), raising only what is low", () => {
    const r = tuned();
    r.congestion = { current: "cubic", available: ["reno", "cubic", "bbr"], allowed: ["reno", "cubic"] };
    r.defaultQdisc = "fq_codel";
    r.buffers = { rmemMax: 212992, wmemMax: 212992, tcpRmem: [4096, 131072, 6291456], tcpWmem: [4096, 16384, 4194304] };
    r.files = { soft: 1024, hard: 4096, fileMax: 8192 };
    const checks = evaluate(r);
    expect(warnings(checks).map((c) => c.id)).toEqual(["congestion", "qdisc", "buffers", "open-files"]);
    const file = sysctlFile(sysctlLines(checks), new Date("2026-11-27T00:00:00Z"));
    expect(file).toBe(
      [
        "# Written by `ferry doctor` on 2026-11-27T00:00:00.000Z: host tuning for transfer speed (docs/doctor.md).",
        "# Install as root: install -m 644 ferry-sysctl.conf /etc/sysctl.d/60-ferry.conf && sysctl --system",
        "# was cubic",
        "net.ipv4.tcp_congestion_control = bbr",
        "# was fq_codel",
        "net.core.default_qdisc = fq",
        "# was 212992",
        "net.core.rmem_max = 67108864",
        "# was 212992",
        "net.core.wmem_max = 67108864",
        "# was 4096 131072 6291456",
        "net.ipv4.tcp_rmem = 4096 131072 67108864",
        "# was 4096 16384 4194304",
        "net.ipv4.tcp_wmem = 4096 16384 67108864",
        "# was 8192",
        "fs.file-max = 1048576",
        "",
      ].join("\n"),
    );
    // The process limit is not a sysctl: it is explained, not written to the file.
    expect(byId(r)["open-files"]!.advice).toContain("LimitNOFILE=65536");
    expect(parseSysctlFile(file!).map((l) => l.key)).toEqual(["net.ipv4.tcp_congestion_control", "net.core.default_qdisc", "net.core.rmem_max", "net.core.wmem_max", "net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem", "fs.file-max"]);
  });

  it("says bbr needs the tcp_bbr module when the kernel does not offer it", () => {
    const r = tuned();
    r.congestion = { current: "cubic", available: ["reno", "cubic"], allowed: ["reno", "cubic"] };
    const check = byId(r).congestion!;
    expect(check.status).toBe("warn");
    expect(check.advice).toContain("tcp_bbr kernel module");
    expect(sysctlFile(check.sysctl)).toContain("# needs the tcp_bbr kernel module, which is not loaded: modprobe tcp_bbr\nnet.ipv4.tcp_congestion_control = bbr");
  });

  it("keeps buffer limits of 32 MiB and more, and warns just below", () => {
    const r = tuned();
    r.buffers = { rmemMax: 32 * MiB, wmemMax: 32 * MiB - 1, tcpRmem: [4096, 131072, 32 * MiB], tcpWmem: [4096, 16384, 32 * MiB] };
    expect(byId(r).buffers!.sysctl).toEqual([{ key: "net.core.wmem_max", value: String(64 * MiB), current: String(32 * MiB - 1) }]);
  });

  it("warns of a nearly full storage and says when the clock or a reading cannot be determined", () => {
    const r = tuned();
    r.disks.push({ paths: ["/data/installers"], measured: "/data", dev: 2, size: 100 * GiB, used: 99 * GiB, free: 1 * GiB });
    r.clock = { synchronized: null, source: "neither timedatectl nor chronyc answered" };
    r.defaultQdisc = null;
    const checks = byId(r);
    expect(checks.disk!.status).toBe("warn");
    expect(checks.disk!.advice).toContain("/data");
    expect(checks.clock).toMatchObject({ status: "unknown", found: "could not be determined: neither timedatectl nor chronyc answered" });
    expect(checks.qdisc!.status).toBe("unknown");
    expect(warnings(Object.values(checks)).map((c) => c.id)).toEqual(["disk"]);
    r.clock = { synchronized: false, source: "timedatectl: NTPSynchronized=no" };
    expect(byId(r).clock!.status).toBe("warn");
  });

  it("--apply's file keeps an earlier run's lines that are not fixed again", () => {
    const earlier = "# old\nnet.core.default_qdisc = fq\nnet.core.rmem_max=67108864\n";
    const merged = mergedSysctlFile(earlier, [{ key: "net.core.rmem_max", value: "134217728", current: "67108864" }], new Date("2026-11-27T00:00:00Z"));
    expect(parseSysctlFile(merged!)).toEqual([
      { key: "net.core.default_qdisc", value: "fq" },
      { key: "net.core.rmem_max", value: "134217728" },
    ]);
  });

  it("reads the open-file limits of /proc/self/limits", () => {
    const limits = "Limit                     Soft Limit           Hard Limit           Units     \nMax processes             63457                63457                processes \nMax open files            1024                 524288               files     \n";
    expect(openFileLimits(limits)).toEqual({ soft: 1024, hard: 524288 });
    expect(openFileLimits("Max open files            unlimited            unlimited            files")).toEqual({ soft: Number.MAX_SAFE_INTEGER, hard: Number.MAX_SAFE_INTEGER });
    expect(openFileLimits("")).toEqual({ soft: null, hard: null });
  });
});
