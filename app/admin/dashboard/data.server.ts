import * as z from "zod";
import type { DashboardMetrics, DashboardStatus, DashboardSummary, DashboardTuning } from "../../../contract/dashboard";
import { EngineError } from "~/utils/engine.server";
import type { SignedIn } from "~/utils/session.server";

/**
 * What the dashboard shows: the five panels, the chart samples and the host-tuning checks (null when
 * the engine could not read them), or `unreachable` while the engine does not answer.
 */
export type DashboardData = { unreachable: false; summary: DashboardSummary; metrics: DashboardMetrics; tuning: DashboardTuning | null } | { unreachable: true };

/** Reads the panels and the samples at once (docs/admin-api.md, "Dashboard"); an engine that does not answer is `unreachable`, not an error page. */
export async function readDashboard(admin: SignedIn): Promise<DashboardData> {
  try {
    // The tuning checks are the engine's cached readings (read again at most once a minute): cheap to ask at every poll.
    const [summary, metrics, tuning] = await Promise.all([
      admin.call<DashboardSummary>("/api/admin/dashboard"),
      admin.call<DashboardMetrics>("/api/admin/dashboard/metrics"),
      admin.call<DashboardTuning>("/api/admin/dashboard/tuning"),
    ]);
    if (!summary.result || !summary.data || !metrics.result || !metrics.data) return { unreachable: true };
    return { unreachable: false, summary: summary.data, metrics: metrics.data, tuning: tuning.result && tuning.data ? tuning.data : null };
  } catch (error) {
    // Down (restarting, shut down) or too slow: the page says so and keeps its last values.
    if (error instanceof EngineError) return { unreachable: true };
    throw error;
  }
}

export const POWER_INTENTS = ["restart", "shutdown"] as const;
export type PowerIntent = (typeof POWER_INTENTS)[number];
export const powerSchema = z.object({ intent: z.enum(POWER_INTENTS) });

/** The answer to a restart or shutdown: the engine's status (restarting / shuttingDown), or its refusal code. */
export type PowerResult = { intent: PowerIntent; status: DashboardStatus; code?: undefined } | { intent: PowerIntent; status?: undefined; code: number };

/** Asks the engine to restart or shut itself down (never the host); 4109 when it cannot (embedded, or not running). */
export async function askPower(admin: SignedIn, intent: PowerIntent): Promise<PowerResult> {
  const reply = await admin.call<DashboardStatus>(`/api/admin/dashboard/${intent}`, { method: "POST" });
  if (!reply.result || !reply.data) return { intent, code: reply.code };
  return { intent, status: reply.data };
}
