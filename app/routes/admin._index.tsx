import { type ActionFunctionArgs, data, type LoaderFunctionArgs, redirect } from "@remix-run/node";
import { useActionData, useFetcher, useLoaderData } from "@remix-run/react";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { CpuChart, NetworkChart } from "~/admin/dashboard/charts";
import { askPower, type DashboardData, POWER_INTENTS, type PowerIntent, powerSchema, readDashboard } from "~/admin/dashboard/data.server";
import { ConnectionsPanel, InfoPanel, LicensePanel, StatusPanel, StoragePanel } from "~/admin/dashboard/panels";
import { POWER_FETCHER, PowerControls, powerPhase, saysUnreachable } from "~/admin/dashboard/power";
import { TuningLine } from "~/admin/dashboard/tuning";
import { readForm } from "~/utils/form.server";
import { requireAdmin } from "~/utils/session.server";
import { keepAfterShutdown } from "~/utils/revalidate";

/** How often the page asks for new values; the engine samples every 5 s (FERRY_DASHBOARD_SAMPLE_MS). */
const POLL_FLOOR_MS = 2000;
const LIVE_PATH = "/admin/dashboard/live";

/**
 * The console's start page, "Server" in the sidebar: the dashboard (admin spec section 2; issue 14).
 * The panels are plain HTML from the loader; with JavaScript they and the CPU and network charts
 * refresh from /admin/dashboard/live. Restart and shut down act on the Ferry engine only.
 */
export const shouldRevalidate = keepAfterShutdown;

export async function loader({ request }: LoaderFunctionArgs) {
  const admin = await requireAdmin(request);
  const url = new URL(request.url);
  const confirm = url.searchParams.get("confirm");
  return data(
    {
      dashboard: await readDashboard(admin),
      disk: url.searchParams.get("disk")?.slice(0, 64) ?? null,
      confirm: POWER_INTENTS.find((intent) => intent === confirm) ?? null,
    },
    { headers: { "Set-Cookie": await admin.commit() } },
  );
}

export async function action({ request }: ActionFunctionArgs) {
  const admin = await requireAdmin(request);
  const form = await readForm(request);
  const parsed = powerSchema.safeParse(Object.fromEntries(form));
  if (!parsed.success) throw new Response("Bad request", { status: 400 });
  // Only a confirmed post acts; without JavaScript the unconfirmed one comes back as the question in the page.
  if (form.get("confirmed") !== "1") throw redirect(`/admin?confirm=${parsed.data.intent}`, { headers: { "Set-Cookie": await admin.commit() } });
  return data(await askPower(admin, parsed.data.intent), { headers: { "Set-Cookie": await admin.commit() } });
}

/** The last values the engine gave (kept while it does not answer), and whether it answers now. */
function useLiveDashboard(initial: DashboardData, polling: boolean) {
  const poll = useFetcher<DashboardData>({ key: "dashboard-live" });
  const [good, setGood] = useState(initial.unreachable ? null : initial);
  const latest = poll.data ?? initial;
  useEffect(() => {
    if (!initial.unreachable) setGood(initial);
  }, [initial]);
  useEffect(() => {
    if (poll.data && !poll.data.unreachable) setGood(poll.data);
  }, [poll.data]);
  const intervalMs = Math.max(POLL_FLOOR_MS, good?.metrics.intervalMs ?? 5000);
  const { load, state } = poll;
  useEffect(() => {
    if (!polling) return;
    const timer = setInterval(() => {
      if (state === "idle" && document.visibilityState === "visible") load(LIVE_PATH);
    }, intervalMs);
    return () => clearInterval(timer);
  }, [polling, intervalMs, load, state]);
  return { good, unreachable: latest.unreachable };
}

export default function AdminDashboard() {
  const { dashboard, disk: initialDisk, confirm } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const power = useFetcher<typeof action>({ key: POWER_FETCHER });
  const { t } = useTranslation();
  const [disk, setDisk] = useState(initialDisk);
  const result = power.data ?? actionData;
  const shutDown = result?.intent === "shutdown" && result.status !== undefined;
  const { good, unreachable } = useLiveDashboard(dashboard, !shutDown);

  const { phase, state } = powerPhase(result, unreachable, good?.summary.status);

  return (
    <section>
      <h1 className="mb-1 text-lg font-semibold">{t("admin.menu.server")}</h1>
      <p className="mb-4 text-sm text-gray-600">{t("dashboard.live")}</p>
      {saysUnreachable(phase, unreachable) && (
        <p role="alert" className="mb-4 rounded border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-800">
          {t("dashboard.unreachable")}
        </p>
      )}
      {good && (
        <div className="grid grid-cols-3 gap-4">
          <ConnectionsPanel connections={good.summary.connections} />
          <StoragePanel storage={good.summary.storage} disk={disk} onDisk={setDisk} />
          <LicensePanel license={good.summary.license} />
          <StatusPanel status={good.summary.status} state={state}>
            {good.tuning && <TuningLine tuning={good.tuning} />}
            <PowerControls
              canRestart={good.summary.status.canRestart}
              confirm={confirm}
              result={result}
              phase={phase}
              busy={power.state === "idle" ? null : ((power.formData?.get("intent") as PowerIntent | null) ?? null)}
            />
          </StatusPanel>
          <div className="col-span-2">
            <InfoPanel info={good.summary.info} />
          </div>
          <div className="col-span-3 grid grid-cols-2 gap-4">
            <CpuChart metrics={good.metrics} />
            <NetworkChart metrics={good.metrics} />
          </div>
        </div>
      )}
    </section>
  );
}
