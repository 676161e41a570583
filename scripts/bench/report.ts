/**
 * The bench's verdicts: each headline number with its target, PASS or MISS, or no number and the
 * reason. The same lines feed the table (people) and the JSON object (comparisons over time).
 */

export type MetricKey =
  | "download_vs_nginx"
  | "download_vs_node"
  | "upload_vs_nginx_put_durable"
  | "ui_upload_vs_nginx_put"
  | "ui_upload_vs_browser_ceiling_same_connections"
  | "rss_mb_peak"
  | "list_100k_ms"
  | "log_upload_vs_off"
  | "log_download_vs_off"
  | "log_ops_vs_off"
  | "wan_a_download_vs_link"
  | "wan_b_download_vs_link"
  | "wan_c_download_vs_link"
  | "wan_a_chromium_download_vs_link"
  | "wan_b_chromium_download_vs_link"
  | "wan_c_chromium_download_vs_link"
  | "wan_ui_upload_vs_chromium_put"
  | "wan_ui_parallel_download_vs_single"
  | "small_files_ui_vs_nginx_put"
  | "upload_4g_last_byte_to_uploaded_s"
  | "objects_upload_vs_sdk"
  | "objects_download_vs_sdk";

interface Target {
  op: ">=" | "<" | "<=";
  value: number;
}

export const METRICS: { key: MetricKey; label: string; unit: string; target: Target | null }[] = [
  { key: "download_vs_nginx", label: "engine download ÷ nginx", unit: "×", target: { op: ">=", value: 0.85 } },
  // No target in issue 4: it says how much of the gap to nginx is Node's own.
  { key: "download_vs_node", label: "engine download ÷ bare Node", unit: "×", target: null },
  // Issue 16: the same durability on both sides (nginx's PUT, then an fsync of its file, timed together).
  { key: "upload_vs_nginx_put_durable", label: "engine upload (curl, tus, commit) ÷ nginx PUT + fsync", unit: "×", target: { op: ">=", value: 0.9 } },
  { key: "ui_upload_vs_nginx_put", label: "web UI upload (Chromium) ÷ nginx PUT", unit: "×", target: { op: ">=", value: 0.6 } },
  // Issue 16: the UI's upload ÷ Chromium sending the same chunks over as many connections, to a server that drops them.
  { key: "ui_upload_vs_browser_ceiling_same_connections", label: "web UI upload ÷ Chromium sending the UI's chunks, as many in flight, to a discarding server", unit: "×", target: { op: ">=", value: 0.9 } },
  { key: "rss_mb_peak", label: "engine peak RSS, 50 downloads + 10 uploads", unit: "MB", target: { op: "<", value: 200 } },
  { key: "list_100k_ms", label: "list of a 100,000-entry folder (median)", unit: "ms", target: { op: "<=", value: 300 } },
  // Issue 15: writing the log never slows a transfer. The engine with its log recorder ÷ the same
  // build with FERRY_BENCH_LOGS_OFF=1, same workload, turn about (docs/bench.md, "Log cost").
  { key: "log_upload_vs_off", label: "tus uploads (16, several PATCHes each) with the logs ÷ without", unit: "×", target: { op: ">=", value: 0.95 } },
  { key: "log_download_vs_off", label: "ranged downloads (64 Range GETs) with the logs ÷ without", unit: "×", target: { op: ">=", value: 0.95 } },
  { key: "log_ops_vs_off", label: "burst of logged socket and REST operations with the logs ÷ without", unit: "×", target: { op: ">=", value: 0.95 } },
  // Issue 16, part wan: over the emulated link (../shared/tools/wan-link.sh), each ÷ the link's rate
  // measured in the same run (iperf3, 4 streams); curl in the client namespace, server BBR.
  { key: "wan_a_download_vs_link", label: "WAN a (100 Mbit/s, 100 ms, 2 %): engine download (curl, server BBR) ÷ link rate", unit: "×", target: { op: ">=", value: 0.85 } },
  { key: "wan_b_download_vs_link", label: "WAN b (1 Gbit/s, 20 ms, 0.1 %): engine download (curl, server BBR) ÷ link rate", unit: "×", target: { op: ">=", value: 0.85 } },
  { key: "wan_c_download_vs_link", label: "WAN c (1 Gbit/s, 50 ms, no loss): engine download (curl, server BBR) ÷ link rate", unit: "×", target: { op: ">=", value: 0.8 } },
  { key: "wan_a_chromium_download_vs_link", label: "WAN a: engine download in Chromium (client namespace, fetch of the signed URL, server BBR) ÷ link rate", unit: "×", target: { op: ">=", value: 0.85 } },
  { key: "wan_b_chromium_download_vs_link", label: "WAN b: engine download in Chromium (client namespace) ÷ link rate", unit: "×", target: { op: ">=", value: 0.85 } },
  { key: "wan_c_chromium_download_vs_link", label: "WAN c: engine download in Chromium (client namespace) ÷ link rate", unit: "×", target: { op: ">=", value: 0.8 } },
  { key: "wan_ui_upload_vs_chromium_put", label: "WAN a/b (the lower): UI upload (client CUBIC) ÷ Chromium's one PUT to nginx", unit: "×", target: { op: ">=", value: 6 } },
  { key: "wan_ui_parallel_download_vs_single", label: "WAN a/b (the lower): UI download with parallel ranges ÷ the browser's single stream (server CUBIC)", unit: "×", target: { op: ">=", value: 4 } },
  { key: "small_files_ui_vs_nginx_put", label: "5,000 files of 4 KiB through the UI ÷ Chromium PUTs to nginx, 6 in flight", unit: "×", target: { op: ">=", value: 1 } },
  { key: "upload_4g_last_byte_to_uploaded_s", label: "4 GiB upload: last byte to \"Uploaded\" in the panel", unit: "s", target: { op: "<=", value: 1 } },
  // Issue 17, part objects: no target; s3rver is a file-backed emulator, so the ratio says what the
  // engine adds between a client and the store, not how fast a real store is.
  { key: "objects_upload_vs_sdk", label: "upload into S3 storage (s3rver) through the engine (curl, tus, commit) ÷ the AWS SDK's multipart upload, same part size, one part at a time", unit: "×", target: null },
  { key: "objects_download_vs_sdk", label: "download from S3 storage (s3rver) through the engine (curl) ÷ the AWS SDK's GetObject, body dropped", unit: "×", target: null },
];

/**
 * Ratios shown in the table right under a headline row, without a target (like download_vs_node).
 * They are no headline keys: the JSON keeps them in `details`.
 */
export const EXTRA_RATIOS = [
  { key: "ceiling_vs_nginx_put", label: "Chromium's one-XHR send ceiling ÷ nginx PUT (the most the UI ratio can reach)", after: "ui_upload_vs_nginx_put" },
  { key: "ui_vs_browser_ceiling", label: "web UI upload ÷ Chromium's one-XHR send ceiling (the whole File in one request)", after: "ui_upload_vs_browser_ceiling_same_connections" },
  { key: "sliced_ceiling_vs_single", label: "Chromium sending the UI's chunks ÷ the whole File in one XHR", after: "ui_upload_vs_browser_ceiling_same_connections" },
  { key: "upload_vs_nginx_put", label: "engine upload ÷ nginx PUT without fsync (issue 4's row)", after: "upload_vs_nginx_put_durable" },
  { key: "engine_upload_vs_node_put_disk", label: "engine upload ÷ bare Node PUT to disk (1 MiB write stream)", after: "upload_vs_nginx_put_durable" },
  { key: "node_put_disk_vs_nginx_put", label: "bare Node PUT to disk ÷ nginx PUT", after: "upload_vs_nginx_put_durable" },
  { key: "node_put_discard_vs_nginx_put", label: "bare Node PUT, body discarded ÷ nginx PUT (the most any Node server reaches)", after: "upload_vs_nginx_put_durable" },
  ...(["a", "b", "c"] as const).flatMap((p) => [
    { key: `wan_${p}_engine_vs_nginx`, label: `WAN ${p}: engine ÷ nginx, both curl, server BBR`, after: `wan_${p}_download_vs_link` },
    { key: `wan_${p}_nginx_vs_link`, label: `WAN ${p}: nginx download (curl, server BBR) ÷ link rate`, after: `wan_${p}_download_vs_link` },
    { key: `wan_${p}_cubic_vs_link`, label: `WAN ${p}: engine download (curl) with server CUBIC ÷ link rate`, after: `wan_${p}_download_vs_link` },
    { key: `wan_${p}_nginx_cubic_vs_link`, label: `WAN ${p}: nginx download (curl) with server CUBIC ÷ link rate`, after: `wan_${p}_download_vs_link` },
  ] as const),
  { key: "objects_upload_vs_sdk_parallel", label: "upload into S3 storage through the engine ÷ the AWS SDK's multipart upload with 4 parts in flight (lib-storage's default)", after: "objects_upload_vs_sdk" },
  { key: "objects_download_vs_curl_direct", label: "download from S3 storage through the engine ÷ curl's own signed GET straight to s3rver (the same client both sides)", after: "objects_download_vs_sdk" },
  // The web client's WAN rows per profile (wan-ui.ts); the headline is the lower of the two.
  ...(["a", "b"] as const).flatMap((p) => [
    { key: `wan_${p}_ui_upload_vs_chromium_put`, label: `WAN ${p}: UI upload (parallel chunks, client CUBIC) ÷ Chromium's one PUT to nginx`, after: "wan_ui_upload_vs_chromium_put" },
    { key: `wan_${p}_ui_parallel_download_vs_single`, label: `WAN ${p}: UI page-written download (parallel ranges, server CUBIC) ÷ one fetch stream in Chromium`, after: "wan_ui_parallel_download_vs_single" },
  ] as const),
] as const satisfies readonly { key: string; label: string; after: MetricKey }[];

export type ExtraKey = (typeof EXTRA_RATIOS)[number]["key"];

export interface Outcome {
  value: number | null;
  /** Why `value` is null. */
  reason?: string;
}

/** What a part of the bench measured: its headline ratios, ratios shown under them, raw numbers, details for --json. */
export interface PartRows {
  headline: Partial<Record<MetricKey, Outcome>>;
  extra: Partial<Record<ExtraKey, Outcome>>;
  raw: Record<string, number | null>;
  details: Record<string, unknown>;
}

/** An error's first line: what a row's reason says. */
export const failure = (error: unknown) => (error as Error).message.split("\n")[0]!;
/** a ÷ b when both were measured. */
export const ratio = (a: number | null | undefined, b: number | null | undefined) => (a !== null && a !== undefined && b !== null && b !== undefined && b > 0 ? a / b : null);
/** A measured value, or null with why. */
export const outcome = (value: number | null, reason: string | undefined): Outcome => (value === null ? { value, reason: reason ?? "no number" } : { value });

function verdict(target: Target | null, value: number | null): "PASS" | "MISS" | "—" | "n/a" {
  if (value === null) return "n/a";
  if (!target) return "—";
  const ok = target.op === ">=" ? value >= target.value : target.op === "<" ? value < target.value : value <= target.value;
  return ok ? "PASS" : "MISS";
}

const round = (value: number, digits: number) => Number(value.toFixed(digits));

/** Decimals shown and kept: ratios 3, seconds 2, MB and ms 1. */
const digits = (unit: string) => (unit === "×" ? 3 : unit === "s" ? 2 : 1);

/** The exact number kept in JSON: ratios to 3 decimals, seconds to 2, MB and ms to 1. */
export function rounded(key: MetricKey, value: number | null): number | null {
  if (value === null) return null;
  return round(value, digits(METRICS.find((m) => m.key === key)!.unit));
}

/** `extra`: the EXTRA_RATIOS that were measured (a key left out shows no line). */
export function table(outcomes: Record<MetricKey, Outcome>, raw: Record<string, number | null>, header: string, extra: Partial<Record<ExtraKey, Outcome>> = {}): string {
  const row = (key: string, o: Outcome, unit: string, target: Target | null, label: string) => {
    const value = o.value === null ? null : round(o.value, digits(unit));
    const shown = value === null ? "null" : `${value}${unit === "×" ? "×" : ` ${unit}`}`;
    const goal = target ? `${target.op} ${target.value}${unit === "×" ? "×" : ` ${unit}`}` : "(none)";
    return [key, shown, goal, verdict(target, o.value), o.value === null ? (o.reason ?? "not measured") : label];
  };
  const rows = METRICS.flatMap((m) => [
    row(m.key, outcomes[m.key], m.unit, m.target, m.label),
    ...EXTRA_RATIOS.filter((e) => e.after === m.key && extra[e.key]).map((e) => row(e.key, extra[e.key]!, "×", null, e.label)),
  ]);
  const head = ["metric", "value", "target", "result", "what"];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (i === 4 ? 0 : r[i]!.length))));
  const line = (cells: string[]) => cells.map((c, i) => (i === 4 ? c : c.padEnd(widths[i]!))).join("  ");
  const rawLines = Object.entries(raw).map(([k, v]) => `  ${k.padEnd(30)} ${v === null ? "null" : round(v, 1)}`);
  return [header, "", line(head), line(widths.map((w, i) => "-".repeat(i === 4 ? 4 : w))), ...rows.map(line), "", "raw numbers (MiB/s unless named; *_mb_s are MB/s, 10^6 bytes):", ...rawLines, ""].join("\n");
}

export function verdictOf(key: MetricKey, value: number | null): string {
  return verdict(METRICS.find((m) => m.key === key)!.target, value);
}
