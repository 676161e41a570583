import type { TaskPage, TaskThroughput } from "../../../contract/tasks";
import { EngineError } from "~/utils/engine.server";
import type { SignedIn } from "~/utils/session.server";
import { liveEngineQuery, type TasksQuery } from "./query";

/** The In progress tab's values: the page of live transfers and the throughput, or `unreachable` while the engine does not answer. */
export type LiveData = { unreachable: false; page: TaskPage; throughput: TaskThroughput } | { unreachable: true };

export async function readLive(admin: SignedIn, query: TasksQuery): Promise<LiveData> {
  try {
    const [page, throughput] = await Promise.all([admin.call<TaskPage>(`/api/admin/tasks?${liveEngineQuery(query)}`), admin.call<TaskThroughput>("/api/admin/tasks/throughput")]);
    if (!page.result || !page.data || !throughput.result || !throughput.data) return { unreachable: true };
    return { unreachable: false, page: page.data, throughput: throughput.data };
  } catch (error) {
    if (error instanceof EngineError) return { unreachable: true };
    throw error;
  }
}
