/**
 * The bench's verdicts: each headline number with its target, PASS or MISS, or no number and the
 * reason. The same lines feed the table (people) and the JSON object (comparisons over time).
 */

export type MetricKey = "download_vs_nginx" | "download_vs_node" | "upload_vs_nginx_put" | "ui_upload_vs_nginx_put" | "rss_mb_peak" | "list_100k_ms";

interface Target {
  op: ">=" | "<" | "<=";
  value: number;
}

export const METRICS: { key: MetricKey; label: string; unit: string; target: Target | null }[] = [
  { key: "download_vs_nginx", label: "engine download ÷ nginx", unit: "×", target: { op: ">=", value: 0.85 } },
  // No target in issue 4: it says how much of the gap to nginx is Node's own.
  { key: "download_vs_node", label: "engine download ÷ bare Node", unit: "×", target: null },
  { key: "upload_vs_nginx_put", label: "engine upload (curl, tus) ÷ nginx PUT", unit: "×", target: { op: ">=", value: 0.8 } },
  { key: "ui_upload_vs_nginx_put", label: "web UI upload (Chromium) ÷ nginx PUT", unit: "×", target: { op: ">=", value: 0.6 } },
  { key: "rss_mb_peak", label: "engine peak RSS, 50 downloads + 10 uploads", unit: "MB", target: { op: "<", value: 200 } },
  { key: "list_100k_ms", label: "list of a 100,000-entry folder (median)", unit: "ms", target: { op: "<=", value: 300 } },
];

export interface Outcome {
  value: number | null;
  /** Why `value` is null. */
  reason?: string;
}

function verdict(target: Target | null, value: number | null): "PASS" | "MISS" | "—" | "n/a" {
  if (value === null) return "n/a";
  if (!target) return "—";
  const ok = target.op === ">=" ? value >= target.value : target.op === "<" ? value < target.value : value <= target.value;
  return ok ? "PASS" : "MISS";
}

const round = (value: number, digits: number) => Number(value.toFixed(digits));

/** The exact number kept in JSON: ratios to 3 decimals, MB and ms to 1. */
export function rounded(key: MetricKey, value: number | null): number | null {
  if (value === null) return null;
  return round(value, METRICS.find((m) => m.key === key)!.unit === "×" ? 3 : 1);
}

export function table(outcomes: Record<MetricKey, Outcome>, raw: Record<string, number | null>, header: string): string {
  const rows = METRICS.map((m) => {
    const o = outcomes[m.key];
    const value = rounded(m.key, o.value);
    const shown = value === null ? "null" : `${value}${m.unit === "×" ? "×" : ` ${m.unit}`}`;
    const target = m.target ? `${m.target.op} ${m.target.value}${m.unit === "×" ? "×" : ` ${m.unit}`}` : "(none)";
    return [m.key, shown, target, verdict(m.target, o.value), o.value === null ? (o.reason ?? "not measured") : m.label];
  });
  const head = ["metric", "value", "target", "result", "what"];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (i === 4 ? 0 : r[i]!.length))));
  const line = (cells: string[]) => cells.map((c, i) => (i === 4 ? c : c.padEnd(widths[i]!))).join("  ");
  const rawLines = Object.entries(raw).map(([k, v]) => `  ${k.padEnd(30)} ${v === null ? "null" : round(v, 1)}`);
  return [header, "", line(head), line(widths.map((w, i) => "-".repeat(i === 4 ? 4 : w))), ...rows.map(line), "", "raw numbers (MiB/s unless named):", ...rawLines, ""].join("\n");
}

export function verdictOf(key: MetricKey, value: number | null): string {
  return verdict(METRICS.find((m) => m.key === key)!.target, value);
}
