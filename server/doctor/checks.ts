import path from "node:path";

/**
 * Host tuning that decides transfer speed (docs/doctor.md): what `ferry doctor` and the engine's
 * start-up log check. This file is pure: readings in (server/doctor/readings.ts gathers them from
 * /proc, statfs and the time services), checks and sysctl lines out, so every rule is testable on
 * made-up readings. Ferry never changes a host setting by itself; `doctor --apply` (run by root)
 * applies exactly the lines shown here (server/doctor/apply.ts).
 */

export type CheckId = "congestion" | "qdisc" | "buffers" | "open-files" | "disk" | "clock";
/** unknown: the reading could not be made; said so, and not counted as a warning. */
export type CheckStatus = "ok" | "warn" | "unknown";

export interface SysctlLine {
  key: string;
  value: string;
  /** What the host has now (null: unreadable). */
  current: string | null;
  /** Why, or what else it needs; written as a comment above the line. */
  note?: string;
}

export interface Check {
  id: CheckId;
  title: string;
  status: CheckStatus;
  /** What was found, in one line. */
  found: string;
  /** Why it matters, in one sentence. */
  why: string;
  /** The sysctl lines that fix it (empty when ok or when sysctl cannot fix it). */
  sysctl: SysctlLine[];
  /** What to do beyond sysctl (a module, a service limit, disk space), or null. */
  advice: string | null;
  /** The raw values found, for `--json`. */
  values: Record<string, unknown>;
}

export interface DiskReading {
  /** The places Ferry keeps data on this filesystem (data directory, storage, installers, database). */
  paths: string[];
  /** The path statfs measured (a missing place is measured at its nearest existing parent). */
  measured: string;
  /** The filesystem's device number (st_dev). */
  dev: number;
  size: number;
  /** Bytes in use (blocks - bfree, as df counts). */
  used: number;
  /** Bytes an unprivileged writer may still use (bavail). */
  free: number;
}

export interface Readings {
  congestion: { current: string | null; available: string[] | null; allowed: string[] | null };
  defaultQdisc: string | null;
  buffers: { rmemMax: number | null; wmemMax: number | null; tcpRmem: number[] | null; tcpWmem: number[] | null };
  /** The open-file limits of this process (Node raises its soft limit to the hard one at start, as the engine's). */
  files: { soft: number | null; hard: number | null; fileMax: number | null };
  disks: DiskReading[];
  /** Places whose filesystem could not be measured, with the reason. */
  diskErrors: { path: string; error: string }[];
  /** synchronized null: could not be determined; source says how it was (or was not) found out. */
  clock: { synchronized: boolean | null; source: string };
}

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

/** The bandwidth-delay product of 1 Gbit/s × 100 ms, in bytes: what one stream must keep in flight. */
export const BDP_BYTES = (1e9 / 8) * 0.1;
/**
 * The kernel spends roughly half of a socket buffer on bookkeeping (tcp_adv_win_scale, or the
 * scaling ratio of newer kernels), so a buffer limit needs about twice the BDP: 32 MiB.
 */
export const BUFFER_MIN = 32 * MiB;
/** What the fix sets the buffer limits to. */
export const BUFFER_TARGET = 64 * MiB;
/** Open files for Ferry's process below this warn: each transfer holds a socket and a file. */
export const NOFILE_MIN = 16384;
export const NOFILE_TARGET = 65536;
export const FILE_MAX_MIN = 65536;
export const FILE_MAX_TARGET = 1048576;
/** A filesystem with less free space than this, or than DISK_MIN_FRACTION of its size, warns. */
export const DISK_MIN_FREE = 2 * GiB;
export const DISK_MIN_FRACTION = 0.05;

export const mib = (bytes: number) => `${Math.round((bytes / MiB) * 10) / 10} MiB`;
const gib = (bytes: number) => `${Math.round((bytes / GiB) * 10) / 10} GiB`;
const show = (value: number | null) => (value === null ? "unreadable" : mib(value));

function congestionCheck(r: Readings["congestion"]): Check {
  const base = {
    id: "congestion" as const,
    title: "TCP congestion control",
    why: "On long or lossy links the sender's congestion control decides the rate: CUBIC backs off at every lost packet and can reach a few percent of the link, while BBR stays near the link rate.",
    values: { current: r.current, available: r.available, allowed: r.allowed },
  };
  if (r.current === null) return { ...base, status: "unknown", found: "net.ipv4.tcp_congestion_control is unreadable", sysctl: [], advice: null };
  const lists = `available: ${r.available?.join(" ") ?? "unreadable"}; allowed for applications: ${r.allowed?.join(" ") ?? "unreadable"}`;
  if (r.current === "bbr") return { ...base, status: "ok", found: `bbr (${lists})`, sysctl: [], advice: null };
  const loaded = r.available?.includes("bbr") ?? false;
  return {
    ...base,
    status: "warn",
    found: `${r.current} (${lists})`,
    sysctl: [{ key: "net.ipv4.tcp_congestion_control", value: "bbr", current: r.current, note: loaded ? undefined : "needs the tcp_bbr kernel module, which is not loaded: modprobe tcp_bbr" }],
    advice: loaded ? null : "bbr is not in tcp_available_congestion_control: it needs the tcp_bbr kernel module (modprobe tcp_bbr, and tcp_bbr in /etc/modules-load.d/ to keep it after a reboot). Ferry does not load modules.",
  };
}

function qdiscCheck(qdisc: string | null): Check {
  const base = {
    id: "qdisc" as const,
    title: "Default queueing discipline",
    why: "The fq qdisc paces each connection's packets as BBR expects (without it the kernel paces at a higher CPU cost) and keeps one bulk transfer from delaying the others.",
    values: { defaultQdisc: qdisc },
  };
  if (qdisc === null) return { ...base, status: "unknown", found: "net.core.default_qdisc is unreadable", sysctl: [], advice: null };
  if (qdisc === "fq") return { ...base, status: "ok", found: "fq", sysctl: [], advice: null };
  return {
    ...base,
    status: "warn",
    found: qdisc,
    sysctl: [{ key: "net.core.default_qdisc", value: "fq", current: qdisc }],
    advice: "The default qdisc applies to interfaces set up after the change: for those already up, `tc qdisc replace dev <interface> root fq` (or a reboot).",
  };
}

function buffersCheck(b: Readings["buffers"]): Check {
  const rmemTop = b.tcpRmem?.[2] ?? null;
  const wmemTop = b.tcpWmem?.[2] ?? null;
  const found = `net.core.rmem_max ${show(b.rmemMax)}, net.core.wmem_max ${show(b.wmemMax)}, tcp_rmem max ${show(rmemTop)}, tcp_wmem max ${show(wmemTop)}`;
  const sysctl: SysctlLine[] = [];
  const raise = (key: string, current: number | null) => {
    if (current !== null && current < BUFFER_MIN) sysctl.push({ key, value: String(BUFFER_TARGET), current: String(current) });
  };
  raise("net.core.rmem_max", b.rmemMax);
  raise("net.core.wmem_max", b.wmemMax);
  // tcp_rmem/tcp_wmem are "min default max": only the max is raised, the others stay as they are.
  for (const [key, triple] of [
    ["net.ipv4.tcp_rmem", b.tcpRmem],
    ["net.ipv4.tcp_wmem", b.tcpWmem],
  ] as const) {
    if (triple && triple.length === 3 && triple[2]! < BUFFER_MIN) sysctl.push({ key, value: `${triple[0]} ${triple[1]} ${BUFFER_TARGET}`, current: triple.join(" ") });
  }
  const unreadable = [b.rmemMax, b.wmemMax, rmemTop, wmemTop].some((v) => v === null);
  return {
    id: "buffers",
    title: "Socket buffer limits",
    status: sysctl.length > 0 ? "warn" : unreadable ? "unknown" : "ok",
    found,
    why: `One stream can only keep a buffer's worth of data in flight: 1 Gbit/s over 100 ms needs 12.5 MB (${mib(BDP_BYTES)}) in flight, so buffer limits below ${mib(BUFFER_MIN)} cap the rate of long links.`,
    sysctl,
    advice: null,
    values: { rmemMax: b.rmemMax, wmemMax: b.wmemMax, tcpRmem: b.tcpRmem, tcpWmem: b.tcpWmem, minimum: BUFFER_MIN, target: BUFFER_TARGET },
  };
}

function openFilesCheck(f: Readings["files"]): Check {
  const sysctl: SysctlLine[] = [];
  if (f.fileMax !== null && f.fileMax < FILE_MAX_MIN) sysctl.push({ key: "fs.file-max", value: String(FILE_MAX_TARGET), current: String(f.fileMax) });
  const lowProcess = f.soft !== null && f.soft < NOFILE_MIN;
  const unreadable = f.soft === null || f.hard === null || f.fileMax === null;
  return {
    id: "open-files",
    title: "Open-file limits",
    status: lowProcess || sysctl.length > 0 ? "warn" : unreadable ? "unknown" : "ok",
    found: `Ferry's process: ${f.soft ?? "unreadable"} (soft, as Node raises it) / ${f.hard ?? "unreadable"} (hard); fs.file-max ${f.fileMax ?? "unreadable"}`,
    why: "Every transfer holds a socket and a file open; past the limit new connections and uploads fail with EMFILE (too many open files).",
    sysctl,
    advice: lowProcess ? `Raise the engine's limit to ${NOFILE_TARGET}: LimitNOFILE=${NOFILE_TARGET} in its systemd unit, or \`ulimit -n ${NOFILE_TARGET}\` (and a hard limit as high, /etc/security/limits.conf) before it starts. This is not a sysctl.` : null,
    values: { soft: f.soft, hard: f.hard, fileMax: f.fileMax, minimum: NOFILE_MIN },
  };
}

function diskCheck(disks: DiskReading[], errors: Readings["diskErrors"]): Check {
  const low = disks.filter((d) => d.free < DISK_MIN_FREE || d.free < d.size * DISK_MIN_FRACTION);
  const describe = (d: DiskReading) => `${d.paths.join(", ")}: ${gib(d.free)} free of ${gib(d.size)}${d.measured !== d.paths[0] ? ` (measured at ${d.measured})` : ""}`;
  const found = [...disks.map(describe), ...errors.map((e) => `${e.path}: ${e.error}`)].join("; ") || "no storage found";
  return {
    id: "disk",
    title: "Free disk of Ferry's storage",
    status: low.length > 0 ? "warn" : errors.length > 0 || disks.length === 0 ? "unknown" : "ok",
    found,
    why: "An upload is written in full before it lands, and the database and logs write there too: a full disk fails uploads near their end.",
    sysctl: [],
    advice: low.length > 0 ? `Free space on ${low.map((d) => d.measured).join(", ")} or move FERRY_DATA_DIR to a larger disk (warned below ${gib(DISK_MIN_FREE)} or ${DISK_MIN_FRACTION * 100} % free).` : null,
    values: { disks, errors, minFree: DISK_MIN_FREE, minFraction: DISK_MIN_FRACTION },
  };
}

function clockCheck(c: Readings["clock"]): Check {
  const base = {
    id: "clock" as const,
    title: "Clock synchronisation",
    why: "Share-link expiry, sign-in token lifetimes and the times in logs and notices all follow this host's clock; a drifting clock ends links early or late and misorders logs.",
    sysctl: [],
    values: { synchronized: c.synchronized, source: c.source },
  };
  if (c.synchronized === true) return { ...base, status: "ok", found: `synchronised (${c.source})`, advice: null };
  if (c.synchronized === false) return { ...base, status: "warn", found: `not synchronised (${c.source})`, advice: "Enable time synchronisation: `timedatectl set-ntp true`, or install and start chrony." };
  return { ...base, status: "unknown", found: `could not be determined: ${c.source}`, advice: "Make sure the host keeps its clock in sync (systemd-timesyncd, chrony or ntpd)." };
}

/** Every check, in the order they are printed. */
export function evaluate(r: Readings): Check[] {
  return [congestionCheck(r.congestion), qdiscCheck(r.defaultQdisc), buffersCheck(r.buffers), openFilesCheck(r.files), diskCheck(r.disks, r.diskErrors), clockCheck(r.clock)];
}

export const warnings = (checks: Check[]) => checks.filter((c) => c.status === "warn");
export const sysctlLines = (checks: Check[]) => checks.flatMap((c) => c.sysctl);

/** Where `doctor --apply` installs the lines; the name operators install the file under by hand too. */
export const SYSCTL_D_FILE = "/etc/sysctl.d/60-ferry.conf";

/** The content of the sysctl.d file for these lines (null: nothing to fix). */
export function sysctlFile(lines: SysctlLine[], generated = new Date()): string | null {
  if (lines.length === 0) return null;
  const body = lines.flatMap((l) => [...(l.current !== null ? [`# was ${l.current}`] : []), ...(l.note ? [`# ${l.note}`] : []), `${l.key} = ${l.value}`]);
  return [
    `# Written by \`ferry doctor\` on ${generated.toISOString()}: host tuning for transfer speed (docs/doctor.md).`,
    `# Install as root: install -m 644 ferry-sysctl.conf ${SYSCTL_D_FILE} && sysctl --system`,
    ...body,
    "",
  ].join("\n");
}

/** key = value lines of a sysctl.d file, in order (comments and blank lines skipped). */
export function parseSysctlFile(text: string): { key: string; value: string }[] {
  const lines: { key: string; value: string }[] = [];
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const eq = line.indexOf("=");
    if (eq <= 0) continue;
    lines.push({ key: line.slice(0, eq).trim().replace(/^-/, ""), value: line.slice(eq + 1).trim().replace(/\s+/g, " ") });
  }
  return lines;
}

/**
 * The file `--apply` writes: the new lines, and the lines of an earlier run's file whose keys are
 * not fixed again now (they are in effect and must stay after a reboot).
 */
export function mergedSysctlFile(existing: string | null, lines: SysctlLine[], generated = new Date()): string | null {
  const fresh = new Set(lines.map((l) => l.key));
  const kept = existing ? parseSysctlFile(existing).filter((l) => !fresh.has(l.key)) : [];
  return sysctlFile([...kept.map((l) => ({ ...l, current: null, note: "kept from an earlier ferry doctor --apply" })), ...lines], generated);
}

/** The /proc/sys file of a sysctl key. */
export const procPath = (key: string) => path.join("/proc/sys", ...key.split("."));
