import { autoCleanParams, autoCleanReport, autoCleanRunBody, autoCleanRuns } from "../../../contract/autoclean";
import { route } from "../../http/route";
import type { AutoCleanSchedule } from "./schedule";
import type { AutoClean } from "./service";

/** The administrator's auto-clean API of a local storage (docs/admin-api.md, "Storages: auto-clean"). */
export function autoCleanRoutes(autoClean: AutoClean, schedule: () => AutoCleanSchedule | null) {
  return [
    route({
      method: "POST",
      url: "/api/admin/storages/:id/autoclean/run",
      tag: "admin",
      summary:
        "Run the storage's auto-clean now, or with dryRun list what a run would move or delete and change nothing (a dry run may try unsaved cleanBy, cleanAge, recyclePath). A run while one goes in this engine answers that run; while one goes on another engine on the database, 4621. 4004 unknown storage, 4104 auto-clean off (or not a local storage), 4156 bad recycle path, 4154 the storage's folder is gone.",
      auth: "admin",
      params: autoCleanParams,
      body: autoCleanRunBody,
      response: autoCleanReport,
      handler: ({ params, body, auth }) => autoClean.run(params.id, body, { kind: "admin", userId: auth!.user.id }),
    }),
    route({
      method: "GET",
      url: "/api/admin/storages/:id/autoclean/runs",
      tag: "admin",
      summary: "The storage's last auto-clean runs in this engine process (newest first), whether one goes now and when the schedule runs it next. 4004 unknown storage.",
      auth: "admin",
      params: autoCleanParams,
      response: autoCleanRuns,
      handler: async ({ params }) => {
        const target = await autoClean.target(params.id);
        const s = schedule();
        return { running: await autoClean.runningAnywhere(target.id), nextRunAt: target.policy && s ? await s.nextRunAt(target.id, target.policy) : null, list: autoClean.runs(target.id) };
      },
    }),
  ];
}
