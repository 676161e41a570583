import { idParams, pageOf } from "../../contract/admin";
import { createSyncTaskBody, syncListQuery, syncRun, syncRunsQuery, syncTask, updateSyncTaskBody } from "../../contract/sync";
import { nullData, route } from "../http/route";
import type { Sync } from "./service";

/** The administrator API of sync tasks (docs/admin-api.md, "Sync tasks"; docs/sync.md). Every route needs the administrator's access token. */
export function syncRoutes(sync: Sync) {
  return [
    route({ method: "GET", url: "/api/admin/sync-tasks", tag: "admin", summary: "List sync tasks (search by name), with each one's status, last run and live progress.", auth: "admin", query: syncListQuery, response: pageOf(syncTask), handler: ({ query }) => sync.list(query) }),
    route({
      method: "POST", url: "/api/admin/sync-tasks", tag: "admin",
      summary: "Create a sync task. 4681 duplicate name, 4683 folders overlap, 4684 two-way with delete source, 4004 unknown storage, 1066 a path leaving its storage.",
      auth: "admin", body: createSyncTaskBody, response: syncTask, handler: ({ body }) => sync.create(body),
    }),
    route({ method: "GET", url: "/api/admin/sync-tasks/:id", tag: "admin", summary: "One sync task. 4680 when there is none.", auth: "admin", params: idParams, response: syncTask, handler: ({ params }) => sync.get(params.id) }),
    route({ method: "PATCH", url: "/api/admin/sync-tasks/:id", tag: "admin", summary: "Change a sync task (not while it runs: 4682). New folders forget what earlier runs synced.", auth: "admin", params: idParams, body: updateSyncTaskBody, response: syncTask, handler: ({ params, body }) => sync.update(params.id, body) }),
    route({
      method: "DELETE", url: "/api/admin/sync-tasks/:id", tag: "admin", summary: "Delete a sync task and its history (not while it runs: 4682). Files are left as they are.", auth: "admin", params: idParams, response: nullData,
      handler: async ({ params }) => { await sync.remove(params.id); return null; },
    }),
    route({ method: "POST", url: "/api/admin/sync-tasks/:id/run", tag: "admin", summary: "Run now (in queue while other runs take the slots). 4682 while it runs or waits.", auth: "admin", params: idParams, response: syncTask, handler: ({ params }) => sync.runNow(params.id) }),
    route({ method: "POST", url: "/api/admin/sync-tasks/:id/stop", tag: "admin", summary: "Stop the task's run: stopping, then stopped. Nothing running: the task as it is.", auth: "admin", params: idParams, response: syncTask, handler: ({ params }) => sync.stop(params.id) }),
    route({ method: "GET", url: "/api/admin/sync-tasks/:id/runs", tag: "admin", summary: "The task's runs, newest first.", auth: "admin", params: idParams, query: syncRunsQuery, response: pageOf(syncRun), handler: ({ params, query }) => sync.runs(params.id, query) }),
  ];
}
