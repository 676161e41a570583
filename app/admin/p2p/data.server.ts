import type { P2pLiveEntry } from "../../../contract/p2p";
import type { ListPage } from "~/admin/list-page.server";
import { EngineError } from "~/utils/engine.server";
import type { SignedIn } from "~/utils/session.server";
import { liveEngineQuery, type P2pQuery } from "./query";

/** The Live tab's values: the page of transfers not ended, or `unreachable` while the engine does not answer. */
export type P2pLiveData = { unreachable: false; page: ListPage<P2pLiveEntry> } | { unreachable: true };

export async function readP2pLive(admin: SignedIn, query: P2pQuery): Promise<P2pLiveData> {
  try {
    const page = await admin.call<ListPage<P2pLiveEntry>>(`/api/transmission/ptp/current?${liveEngineQuery(query)}`);
    if (!page.result || !page.data) return { unreachable: true };
    return { unreachable: false, page: page.data };
  } catch (error) {
    if (error instanceof EngineError) return { unreachable: true };
    throw error;
  }
}
