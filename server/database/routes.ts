import { copyBody, copyStatus, currentDatabase, databaseTarget, testResult } from "../../contract/database";
import { route } from "../http/route";
import type { DatabaseAdmin } from "./service";

/** The database page (docs/admin-api.md, "Database"; docs/database.md). Every route needs the administrator's token. */
export function databaseRoutes(database: DatabaseAdmin) {
  const base = "/api/admin/database";
  return [
    route({ method: "GET", url: base, tag: "admin", summary: "The database Ferry runs on: kind, version, location without password, size, rows per table; a switch waiting for the restart, the last failed one.", auth: "admin", response: currentDatabase, handler: () => database.current() }),
    route({ method: "POST", url: `${base}/test`, tag: "admin", summary: "Connect to a MariaDB/MySQL or PostgreSQL database: its version and how many of Ferry's tables it holds. 4400 account refused, 4136 no such database, 4401 no server there, 4404 the current database.", auth: "admin", body: databaseTarget, response: testResult, handler: ({ body }) => database.test(body) }),
    route({ method: "POST", url: `${base}/copy`, tag: "admin", summary: "Start copying every table into the target (refusals as the test's, 4402 Ferry's tables present without replace, 4403 a copy running); follow it with GET copy. When verified, the switch waits for the restart (code 1077 in the status).", auth: "admin", body: copyBody, response: copyStatus, handler: ({ body }) => database.startCopy(body) }),
    route({ method: "DELETE", url: `${base}/pending`, tag: "admin", summary: "Forget the verified copy waiting for the restart: the next start stays on the current database (the target's tables stay). 4403 while a copy runs.", auth: "admin", response: currentDatabase, handler: () => database.cancelPending() }),
    route({ method: "GET", url: `${base}/copy`, tag: "admin", summary: "The copy's status: phase, table, rows done of rows in all, per-table counts; done carries code 1077 (restart to switch), failed its error code and message.", auth: "admin", response: copyStatus, handler: async () => database.status() }),
  ];
}
