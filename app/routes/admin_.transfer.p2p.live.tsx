import { data, type LoaderFunctionArgs } from "@remix-run/node";
import { readP2pLive } from "~/admin/p2p/data.server";
import { readP2pQuery } from "~/admin/p2p/query";
import { requireAdmin } from "~/utils/session.server";

/**
 * The Point to point screen's live list (resource route, JSON): the page polls it every
 * P2P_LIVE_POLL_MS. Polling is not activity: an open screen does not keep an idle administrator
 * signed in.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const admin = await requireAdmin(request, { activity: false });
  const live = await readP2pLive(admin, readP2pQuery(new URL(request.url).searchParams));
  return data(live, { headers: { "Set-Cookie": await admin.commit() } });
}
