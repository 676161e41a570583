import { useTranslation } from "react-i18next";
import { ConfirmedAction } from "../../components/ui/confirmed-action";
import { useHydrated } from "../../utils/use-hydrated";
import type { DashboardStatus, ServerState } from "../../../contract/dashboard";
import type { PowerIntent, PowerResult } from "./data.server";

/** The dashboard's action, and the fetcher its confirmed restart or shutdown goes through. */
export const POWER_ACTION = "/admin?index";
export const POWER_FETCHER = "dashboard-power";
const POWER_INTENTS = ["restart", "shutdown"] as const satisfies readonly PowerIntent[];

/** Where a restart or shutdown the administrator asked for stands. */
export type PowerPhase = "idle" | "restarting" | "restarted" | "shuttingDown";

/**
 * The phase of what the administrator asked, and the server state to show (spec section 4): a
 * restart is over once the engine answers `running` with another start time than the one that
 * said "restarting"; an engine that does not answer otherwise is in `error`.
 */
export function powerPhase(result: PowerResult | undefined, unreachable: boolean, status: DashboardStatus | undefined): { phase: PowerPhase; state: ServerState } {
  if (result?.status && result.intent === "shutdown") return { phase: "shuttingDown", state: "shuttingDown" };
  if (result?.status && result.intent === "restart") {
    // `status` is the last answer: once a new engine has answered running, the restart is over, and
    // the engine going silent after that is an error, not the restart still under way.
    const back = status !== undefined && status.startedAt !== result.status.startedAt && status.state === "running";
    if (!back) return { phase: "restarting", state: "restarting" };
    return { phase: "restarted", state: unreachable ? "error" : "running" };
  }
  return { phase: "idle", state: unreachable || !status ? "error" : status.state };
}

/**
 * Whether the page says the engine does not answer: not while a restart the administrator asked for
 * is under way (its own message says it waits for the engine) nor after a shutdown.
 */
export function saysUnreachable(phase: PowerPhase, unreachable: boolean): boolean {
  return unreachable && (phase === "idle" || phase === "restarted");
}

const TEXT = {
  restart: { button: "dashboard.restart", title: "dashboard.restart.title", body: "dashboard.restart.body" },
  shutdown: { button: "dashboard.shutdown", title: "dashboard.shutdown.title", body: "dashboard.shutdown.body" },
} as const;

/**
 * Restart and shut down the Ferry service (never the host), each after the kit's confirmation
 * (ConfirmedAction): the dialog with JavaScript, whose confirmed post goes through the page's
 * `dashboard-power` fetcher; without it the post comes back as `?confirm=…`, the question in the page.
 */
export function PowerControls({
  canRestart,
  confirm,
  result,
  phase,
  busy,
}: {
  canRestart: boolean;
  /** The confirmation asked for without JavaScript (`?confirm=restart`). */
  confirm: PowerIntent | null;
  result: PowerResult | undefined;
  phase: PowerPhase;
  /** The request on its way to the engine. */
  busy: PowerIntent | null;
}) {
  const { t } = useTranslation();
  const hydrated = useHydrated();
  const stopped = phase === "shuttingDown";
  return (
    <div className="mt-4 border-t border-gray-200 pt-4">
      <h3 className="mb-1 text-sm font-semibold">{t("dashboard.power")}</h3>
      <p className="mb-2 text-xs text-gray-600">{t("dashboard.power.note")}</p>
      {!canRestart && <p className="mb-2 text-xs text-gray-600">{t("dashboard.power.embedded")}</p>}
      <div className="flex flex-wrap gap-2">
        {POWER_INTENTS.map((intent) => (
          <ConfirmedAction
            key={intent}
            action={POWER_ACTION}
            fields={{ intent }}
            fetcherKey={POWER_FETCHER}
            label={t(TEXT[intent].button)}
            title={t(TEXT[intent].title)}
            message={t(TEXT[intent].body)}
            confirmLabel={t(TEXT[intent].button)}
            danger={intent === "shutdown"}
            loading={busy === intent}
            disabled={stopped || phase === "restarting"}
            asking={confirm === intent && !result}
            cancelHref="/admin"
          />
        ))}
      </div>
      <Outcome result={result} phase={phase} hydrated={hydrated} />
    </div>
  );
}

/** What came of the request: the engine's refusal, or the restart's and shutdown's progress. */
export function Outcome({ result, phase, hydrated }: { result: PowerResult | undefined; phase: PowerPhase; hydrated: boolean }) {
  const { t } = useTranslation();
  if (result?.code !== undefined) {
    return (
      <p role="alert" className="mt-3 rounded border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-800">
        {t("dashboard.refused", { message: t(`error.${result.code}`, { defaultValue: t("global.error.unknown", { code: result.code }) }) })}
      </p>
    );
  }
  const message = {
    idle: null,
    restarting: hydrated ? t("dashboard.restart.pending") : t("dashboard.restart.nojs"),
    restarted: t("dashboard.restart.done"),
    shuttingDown: t("dashboard.shutdown.done"),
  }[phase];
  if (!message) return null;
  // Back and running reads as done (the state badge's green); waiting and stopping as in progress.
  const look = phase === "restarted" ? "border-green-300 bg-green-50" : "border-amber-300 bg-amber-50";
  return (
    <p role="status" className={`mt-3 rounded border px-3 py-2 text-sm text-gray-900 ${look}`}>
      {message}
    </p>
  );
}
