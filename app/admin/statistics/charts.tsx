import { BarElement, CategoryScale, Chart as ChartJS, Legend, LinearScale, Tooltip, type ChartOptions } from "chart.js";
import { useId } from "react";
import { Bar } from "react-chartjs-2";
import { useTranslation } from "react-i18next";
import type { StatisticsRow, StatisticsSums } from "../../../contract/statistics";
import { formatSize } from "../../../contract/sizes";
import { ScriptRequired } from "~/components/ui/script-required";
import { byteRateScale } from "~/admin/dashboard/scale";
import { Panel } from "~/admin/dashboard/panels";

ChartJS.register(CategoryScale, LinearScale, BarElement, Tooltip, Legend);

/** Upload and download in the dashboard's colours for sent and received. */
const COLORS = { upload: "#2563EB", download: "#16A34A" };

/** A byte tick without zero decimals ("16 KB", "1.5 MB"). */
const tickSize = (bytes: number) => {
  const [amount, unit] = formatSize(bytes).split(" ");
  return `${Number(amount)} ${unit}`;
};

function options(y: NonNullable<ChartOptions<"bar">["scales"]>["y"], label: (value: number) => string): ChartOptions<"bar"> {
  return {
    animation: false,
    maintainAspectRatio: false,
    interaction: { mode: "index", intersect: false },
    scales: { x: { ticks: { maxTicksLimit: 12, maxRotation: 0 } }, y },
    plugins: { legend: { position: "bottom", labels: { boxWidth: 12 } }, tooltip: { callbacks: { label: (item) => `${item.dataset.label}: ${label(item.parsed.y ?? 0)}` } } },
  };
}

/**
 * The per-day charts: bytes and transfers, uploads beside downloads. Each is an image named by what
 * it shows and described by the range's totals; the Per day table is the same numbers as text.
 */
export function DailyCharts({ days, totals }: { days: StatisticsRow[]; totals: StatisticsSums }) {
  const { t } = useTranslation();
  const summaryId = useId();
  const labels = days.map((d) => d.key.slice(5));
  const scale = byteRateScale(Math.max(0, ...days.map((d) => Math.max(d.uploadBytes, d.downloadBytes))));
  const summary = t("admin.statistics.chart.summary", {
    days: days.length,
    uploaded: formatSize(totals.uploadBytes),
    uploads: totals.uploads,
    downloaded: formatSize(totals.downloadBytes),
    downloads: totals.downloads,
  });
  return (
    <div className="grid grid-cols-2 gap-4">
      <Panel title={t("admin.statistics.volume")}>
        <p id={summaryId} className="mb-2 text-sm text-gray-700">
          {summary}
        </p>
        <ScriptRequired message={t("admin.statistics.charts.need-js")}>
          <div className="h-56">
            <Bar
              role="img"
              aria-label={t("admin.statistics.volume.chart")}
              aria-describedby={summaryId}
              options={options({ min: 0, max: scale.max, ticks: { stepSize: scale.stepSize, callback: (v) => tickSize(Number(v)) } }, (v) => formatSize(v))}
              data={{
                labels,
                datasets: [
                  { label: t("admin.statistics.uploaded"), data: days.map((d) => d.uploadBytes), backgroundColor: COLORS.upload },
                  { label: t("admin.statistics.downloaded"), data: days.map((d) => d.downloadBytes), backgroundColor: COLORS.download },
                ],
              }}
            />
          </div>
        </ScriptRequired>
      </Panel>
      <Panel title={t("admin.statistics.counts")}>
        <p className="mb-2 text-sm text-gray-700">{summary}</p>
        <ScriptRequired message={t("admin.statistics.charts.need-js")}>
          <div className="h-56">
            <Bar
              role="img"
              aria-label={t("admin.statistics.counts.chart")}
              aria-describedby={summaryId}
              options={options({ min: 0, ticks: { precision: 0 } }, (v) => String(v))}
              data={{
                labels,
                datasets: [
                  { label: t("admin.statistics.uploads"), data: days.map((d) => d.uploads), backgroundColor: COLORS.upload },
                  { label: t("admin.statistics.downloads"), data: days.map((d) => d.downloads), backgroundColor: COLORS.download },
                ],
              }}
            />
          </div>
        </ScriptRequired>
      </Panel>
    </div>
  );
}
