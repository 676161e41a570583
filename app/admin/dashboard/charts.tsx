import { CategoryScale, Chart as ChartJS, Filler, Legend, LinearScale, LineElement, PointElement, Tooltip, type ChartOptions } from "chart.js";
import { useId, useState } from "react";
import { Line } from "react-chartjs-2";
import { useTranslation } from "react-i18next";
import type { DashboardMetrics } from "../../../contract/dashboard";
import { formatSize } from "../../../contract/sizes";
import { ScriptRequired } from "~/components/ui/script-required";
import { useFormatTime } from "./format";
import { byteRateScale, tickRate } from "./scale";
import { Panel, SELECT_CLASS } from "./panels";

ChartJS.register(CategoryScale, LinearScale, PointElement, LineElement, Filler, Tooltip, Legend);

const COLORS = { cpu: "#FD5C1F", memory: "#2563EB", rx: "#16A34A", tx: "#2563EB" };
const ALL = "";

/** Chart.js options both charts share: no animation (a new point every few seconds), a few time ticks. */
function options(y: NonNullable<ChartOptions<"line">["scales"]>["y"], label: (value: number) => string): ChartOptions<"line"> {
  return {
    animation: false,
    maintainAspectRatio: false,
    interaction: { mode: "index", intersect: false },
    elements: { point: { radius: 0 }, line: { borderWidth: 2, tension: 0.2 } },
    scales: { x: { ticks: { maxTicksLimit: 6, maxRotation: 0 } }, y },
    // The legend and the tooltip in the datasets' order, whatever order they are drawn in.
    plugins: { legend: { position: "bottom", labels: { boxWidth: 12, sort: (a, b) => (a.datasetIndex ?? 0) - (b.datasetIndex ?? 0) } }, tooltip: { itemSort: (a, b) => a.datasetIndex - b.datasetIndex, callbacks: { label: (item) => `${item.dataset.label}: ${label(item.parsed.y ?? 0)}` } } },
  };
}

const round = (value: number) => Math.round(value * 10) / 10;

/** The text every chart carries: the latest sample's time (a <time>) and values, and how many samples there are. */
function Samples({ metrics, id, latest }: { metrics: DashboardMetrics; id: string; latest: (time: string) => string }) {
  const { t } = useTranslation();
  const time = useFormatTime("time");
  const last = metrics.points.at(-1);
  if (!last) return <p id={id} className="mb-2 text-sm text-gray-600">{t("dashboard.no-samples")}</p>;
  const [before, after] = latest("\u0000").split("\u0000");
  return (
    <p id={id} className="mb-2 text-sm text-gray-700">
      {before}
      <time dateTime={new Date(last.t).toISOString()}>{time(last.t)}</time>
      {after} {t("dashboard.samples", { count: metrics.points.length, seconds: metrics.intervalMs / 1000 })}
    </p>
  );
}

/** The CPU panel: percent of all cores busy and of memory in use over the engine's sample window. */
export function CpuChart({ metrics }: { metrics: DashboardMetrics }) {
  const { t } = useTranslation();
  const time = useFormatTime("time");
  const id = useId();
  const last = metrics.points.at(-1);
  const labels = metrics.points.map((p) => time(p.t));
  return (
    <Panel title={t("dashboard.cpu")}>
      <Samples metrics={metrics} id={id} latest={(at) => (last ? t("dashboard.cpu.latest", { time: at, cpu: round(last.cpu), memory: round(last.memory) }) : "")} />
      <ScriptRequired message={t("dashboard.charts.need-js")}>
        <div className="h-52">
          <Line
            role="img"
            aria-label={t("dashboard.cpu.chart", { minutes: Math.round(metrics.windowMs / 60_000) })}
            aria-describedby={id}
            options={options({ min: 0, max: 100, ticks: { callback: (v) => `${v} %` } }, (v) => `${round(v)} %`)}
            data={{
              labels,
              datasets: [
                { label: t("dashboard.cpu.series"), data: metrics.points.map((p) => round(p.cpu)), borderColor: COLORS.cpu, backgroundColor: `${COLORS.cpu}22`, fill: true },
                { label: t("dashboard.memory.series"), data: metrics.points.map((p) => round(p.memory)), borderColor: COLORS.memory, backgroundColor: COLORS.memory },
              ],
            }}
          />
        </div>
      </ScriptRequired>
    </Panel>
  );
}

/** The network panel: bytes per second received and sent, of one network card or all of them. */
export function NetworkChart({ metrics }: { metrics: DashboardMetrics }) {
  const { t } = useTranslation();
  const time = useFormatTime("time");
  const id = useId();
  const selectId = useId();
  const [card, setCard] = useState(ALL);
  const cards = [...new Set(metrics.points.flatMap((p) => Object.keys(p.net)))].sort();
  const rate = (p: DashboardMetrics["points"][number], key: "rx" | "tx") =>
    card === ALL ? Object.values(p.net).reduce((sum, n) => sum + n[key], 0) : (p.net[card]?.[key] ?? 0);
  const last = metrics.points.at(-1);
  const perSecond = (v: number) => `${formatSize(Math.round(v))}/s`;
  const rx = metrics.points.map((p) => rate(p, "rx"));
  const tx = metrics.points.map((p) => rate(p, "tx"));
  const scale = byteRateScale(Math.max(0, ...rx, ...tx));
  return (
    <Panel
      title={t("dashboard.network")}
      actions={
        // Switching cards is the browser's work: without JavaScript the chooser is hidden (ScriptRequired's rule).
        <span data-script-only="" className="flex items-center gap-2 text-sm">
          <label htmlFor={selectId} className="text-gray-600">
            {t("dashboard.network.interface")}
          </label>
          <select id={selectId} value={card} onChange={(event) => setCard(event.target.value)} className={SELECT_CLASS}>
            <option value={ALL}>{t("dashboard.network.all")}</option>
            {cards.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </span>
      }
    >
      <Samples
        metrics={metrics}
        id={id}
        latest={(at) => (last ? t("dashboard.network.latest", { time: at, rx: formatSize(Math.round(rate(last, "rx"))), tx: formatSize(Math.round(rate(last, "tx"))) }) : "")}
      />
      <ScriptRequired message={t("dashboard.charts.need-js")}>
        <div className="h-52">
          <Line
            role="img"
            aria-label={t("dashboard.network.chart", { card: card === ALL ? t("dashboard.network.all") : card, minutes: Math.round(metrics.windowMs / 60_000) })}
            aria-describedby={id}
            options={options({ min: 0, max: scale.max, ticks: { stepSize: scale.stepSize, callback: (v) => tickRate(Number(v)) } }, perSecond)}
            data={{
              labels: metrics.points.map((p) => time(p.t)),
              datasets: [
                { label: t("dashboard.network.rx"), data: rx, borderColor: COLORS.rx, backgroundColor: COLORS.rx },
                // Dashed, drawn over the received line: equal rates (loopback traffic) leave both visible.
                { label: t("dashboard.network.tx"), data: tx, borderColor: COLORS.tx, backgroundColor: COLORS.tx, borderDash: [6, 4], order: -1 },
              ],
            }}
          />
        </div>
      </ScriptRequired>
    </Panel>
  );
}
