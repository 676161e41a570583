import { data, type LoaderFunctionArgs } from "@remix-run/node";
import { readDashboard } from "~/admin/dashboard/data.server";
import { EngineError } from "~/utils/engine.server";
import { requireAdmin } from "~/utils/session.server";

/**
 * The dashboard's live values (resource route, JSON): the page polls it every few seconds for the
 * panels and the chart samples. Polling is not activity: an open dashboard does not keep an idle
 * administrator signed in.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  try {
    const admin = await requireAdmin(request, { activity: false });
    return data(await readDashboard(admin), { headers: { "Set-Cookie": await admin.commit() } });
  } catch (error) {
    // A token refresh while the engine restarts: say "not answering", the next poll tries again.
    if (error instanceof EngineError) return data({ unreachable: true as const });
    throw error;
  }
}
