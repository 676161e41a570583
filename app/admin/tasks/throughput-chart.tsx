import { CategoryScale, Chart as ChartJS, Filler, Legend, LinearScale, LineElement, PointElement, Tooltip } from "chart.js";
import { useId } from "react";
import { Line } from "react-chartjs-2";
import { useTranslation } from "react-i18next";
import type { TaskThroughput } from "../../../contract/tasks";
import { formatSize } from "../../../contract/sizes";
import { ScriptRequired } from "~/components/ui/script-required";
import { useFormatTime } from "~/admin/dashboard/format";
import { byteRateScale, tickRate } from "~/admin/dashboard/scale";

ChartJS.register(CategoryScale, LinearScale, PointElement, LineElement, Filler, Tooltip, Legend);

const COLORS = { upload: "#2563EB", download: "#16A34A" };
const perSecond = (v: number) => `${formatSize(Math.round(v))}/s`;

/** Total throughput of the transfers in progress over the engine's last minutes (the dashboard's chart library and scale). */
export function ThroughputChart({ throughput }: { throughput: TaskThroughput }) {
  const { t } = useTranslation();
  const time = useFormatTime("time");
  const id = useId();
  const last = throughput.points.at(-1);
  const up = throughput.points.map((p) => p.upload);
  const down = throughput.points.map((p) => p.download);
  const scale = byteRateScale(Math.max(0, ...up, ...down));
  return (
    <section aria-labelledby={`${id}-title`} className="rounded border border-gray-200 bg-white p-3">
      <h2 id={`${id}-title`} className="text-sm font-semibold">
        {t("admin.tasks.chart.title")}
      </h2>
      <p id={id} className="mb-2 text-sm text-gray-700">
        {t("admin.tasks.chart.latest", { upload: formatSize(Math.round(last?.upload ?? 0)), download: formatSize(Math.round(last?.download ?? 0)) })}
      </p>
      <ScriptRequired message={t("admin.tasks.chart.need-js")}>
        <div className="h-40">
          <Line
            role="img"
            aria-label={t("admin.tasks.chart.label", { minutes: Math.round(throughput.windowMs / 60_000) })}
            aria-describedby={id}
            options={{
              animation: false,
              maintainAspectRatio: false,
              interaction: { mode: "index", intersect: false },
              elements: { point: { radius: 0 }, line: { borderWidth: 2, tension: 0.2 } },
              scales: { x: { ticks: { maxTicksLimit: 6, maxRotation: 0 } }, y: { min: 0, max: scale.max, ticks: { stepSize: scale.stepSize, callback: (v) => tickRate(Number(v)) } } },
              plugins: { legend: { position: "bottom", labels: { boxWidth: 12 } }, tooltip: { callbacks: { label: (item) => `${item.dataset.label}: ${perSecond(item.parsed.y ?? 0)}` } } },
            }}
            data={{
              labels: throughput.points.map((p) => time(p.t)),
              datasets: [
                { label: t("admin.tasks.chart.upload"), data: up, borderColor: COLORS.upload, backgroundColor: COLORS.upload },
                { label: t("admin.tasks.chart.download"), data: down, borderColor: COLORS.download, backgroundColor: `${COLORS.download}22`, fill: true },
              ],
            }}
          />
        </div>
      </ScriptRequired>
    </section>
  );
}
