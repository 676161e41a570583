import { data, type LoaderFunctionArgs } from "@remix-run/node";
import { readLive } from "~/admin/tasks/data.server";
import { readTasksQuery } from "~/admin/tasks/query";
import { requireAdmin } from "~/utils/session.server";

/**
 * The General tasks screen's live values (resource route, JSON): the page polls it every
 * LIVE_POLL_MS for the transfers in progress and the throughput. Polling is not activity: an open
 * tasks screen does not keep an idle administrator signed in.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const admin = await requireAdmin(request, { activity: false });
  const live = await readLive(admin, readTasksQuery(new URL(request.url).searchParams));
  return data(live, { headers: { "Set-Cookie": await admin.commit() } });
}
