import type { Generated, Kysely } from "kysely";
import type { Db } from "../db/connect";
import type { Database } from "../db/schema";

/*
 * The events' tables (migration 0019_events, server/events/migration.ts). Their row types live
 * here, next to the only code that reads them.
 */

export interface EventsTable {
  id: Generated<number>;
  name: string;
  /** Lower-case name: the unique key (4147 on a duplicate). */
  name_key: string;
  /** contract/events.ts EVENT_TYPES */
  type: string;
  /** "run_executable" */
  operation: string;
  /** 1 activated, 0 inactivated */
  active: number;
  remark: string;
  executable: string;
  command_line: string;
  /** The command line split at save time, as a JSON array of strings. */
  args: string;
  wait_seconds: number;
  created_at: number;
  updated_at: number;
}

export interface EventRunsTable {
  id: Generated<number>;
  event_id: number;
  /** Unix ms when it started (or was refused). */
  at: number;
  /** The event type that ran it, or "test". */
  trigger_type: string;
  path: string;
  account: string;
  exit_code: number | null;
  signal: string | null;
  timed_out: number;
  duration_ms: number;
  stdout: string;
  stderr: string;
  error: string;
}

export interface EventsDatabase extends Database {
  events: EventsTable;
  event_runs: EventRunsTable;
}

export const eventsDb = (db: Db): Kysely<EventsDatabase> => db.kysely as unknown as Kysely<EventsDatabase>;
