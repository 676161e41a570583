import * as z from "zod";

/**
 * The administrator's dashboard (admin spec section 2, "Dashboard panels"; docs/admin-api.md,
 * "Dashboard"): live values of the machine the engine runs on. Field names follow the spec where
 * it gives them (License, Server info, section 4's server states).
 */

/** Spec section 4: running, paused, shutting down, restarting, starting, error. */
export const SERVER_STATES = ["running", "paused", "shuttingDown", "restarting", "starting", "error"] as const;
export const serverState = z.enum(SERVER_STATES);
export type ServerState = z.infer<typeof serverState>;

export const dashboardConnections = z.object({
  webOnline: z.number().int().describe("Users (the administrator included) with a live session: signed in, not signed out, access token unexpired."),
  socketOnline: z.number().int().describe("Of those, users with a signed-in file-server socket open on this engine (a web page or client connected now)."),
  client_online: z.number().int().describe("Desktop clients connected, across every engine instance (as in /api/service/info)."),
  clientLimit: z.number().int().nullable().describe("Desktop clients the edition allows at once; null unlimited (every edition but free)."),
});
export type DashboardConnections = z.infer<typeof dashboardConnections>;

export const dashboardDisk = z.object({
  id: z.string().describe("The filesystem's device number: choose a disk by it."),
  paths: z.array(z.string()).describe("What Ferry keeps there: the storage root, the data directory (database, uploads in progress)."),
  total: z.number().int().describe("Bytes of the filesystem (df Size)."),
  used: z.number().int().describe("Bytes in use (df Used)."),
  free: z.number().int().describe("Bytes available to Ferry (df Avail; the root-reserved part left out)."),
});
export const dashboardStorage = z.object({ disks: z.array(dashboardDisk) });
export type DashboardStorage = z.infer<typeof dashboardStorage>;

/** Spec section 3, License: the edition in effect and the licence behind it (docs/licence.md). */
export const dashboardLicense = z.object({
  status: z.enum(["activated", "inactivated"]),
  edition: z.enum(["free", "pro", "smb", "enterprise"]),
  userLimit: z.number().int().nullable().describe("Accounts the edition allows; null unlimited."),
  userCount: z.number().int().describe("User accounts created (the administrator not counted)."),
  clientLimit: z.number().int().nullable(),
  activationDate: z.number().int().nullable().describe("Unix seconds the licence in effect was uploaded; null: no valid licence."),
  expiryDate: z.number().int().nullable().describe("Unix seconds; null: never expires, or no valid licence."),
  source: z.enum(["licence", "environment", "default"]).describe("licence: a valid licence; environment: FERRY_EDITION's unlicensed override; default: free."),
  licensee: z.string().nullable(),
  problem: z.object({ code: z.union([z.literal(1092), z.literal(1093)]), reason: z.string() }).nullable().describe("Why an uploaded licence is not in effect: 1092 expired, 1093 invalid."),
});
export type DashboardLicense = z.infer<typeof dashboardLicense>;

export const dashboardStatus = z.object({
  state: serverState,
  startedAt: z.number().int().describe("Unix milliseconds this engine process started serving."),
  uptime: z.number().int().describe("Seconds since startedAt."),
  pid: z.number().int(),
  canRestart: z.boolean().describe("Whether this engine can restart itself (false when embedded, e.g. in tests)."),
});
export type DashboardStatus = z.infer<typeof dashboardStatus>;

/** Spec section 3, Server info: name, version, MAC, OS, host, and the ports as /api/service/info names them. */
export const dashboardInfo = z.object({
  name: z.string().describe("The machine's host name."),
  version: z.string(),
  mac: z.string().describe("MAC address of the first network card that is not loopback; empty when none."),
  os: z.string(),
  host: z.string().describe("Address clients reach the file server at (transfer settings), else the address the engine listens on."),
  apiport: z.number().int(),
  no_ssl_port: z.number().int(),
  ssl_port: z.number().int().nullable().describe("File-server TLS port; null without a certificate."),
  cpus: z.number().int(),
  memory: z.number().int().describe("Bytes of memory of the machine."),
});
export type DashboardInfo = z.infer<typeof dashboardInfo>;

export const metricPoint = z.object({
  t: z.number().int().describe("Unix milliseconds of the sample."),
  cpu: z.number().describe("Percent of all cores busy since the previous sample, 0–100."),
  memory: z.number().describe("Percent of memory in use."),
  net: z.record(z.string(), z.object({ rx: z.number(), tx: z.number() })).describe("Bytes per second received and sent per network interface since the previous sample."),
});
export const dashboardMetrics = z.object({
  intervalMs: z.number().int(),
  windowMs: z.number().int(),
  points: z.array(metricPoint).describe("Oldest first; at most windowMs / intervalMs."),
});
export type DashboardMetrics = z.infer<typeof dashboardMetrics>;

export const dashboardSummary = z.object({
  connections: dashboardConnections,
  storage: dashboardStorage,
  license: dashboardLicense,
  status: dashboardStatus,
  info: dashboardInfo,
});
export type DashboardSummary = z.infer<typeof dashboardSummary>;

/**
 * Host tuning (docs/doctor.md, "The admin dashboard"): the quick checks of `ferry doctor` (small
 * /proc files and statfs, no child process), as the engine's start-up log runs them, read again at
 * most once a minute. The text (found, why, advice) is the doctor's, in English like the CLI.
 */
export const TUNING_CHECK_IDS = ["congestion", "qdisc", "buffers", "open-files", "disk", "clock"] as const;
export const tuningCheck = z.object({
  id: z.enum(TUNING_CHECK_IDS),
  title: z.string().describe("The check's name, as `ferry doctor` prints it."),
  status: z.enum(["ok", "warn", "unknown"]).describe("unknown: the reading could not be made (not counted as a warning)."),
  found: z.string().describe("What was found, in one line."),
  why: z.string().describe("Why it matters, in one sentence."),
  sysctl: z
    .array(z.object({ key: z.string(), value: z.string(), current: z.string().nullable().describe("What the host has now; null: unreadable.") }))
    .describe("The sysctl lines that fix it (`key = value`); empty when ok or when sysctl cannot fix it."),
  advice: z.string().nullable().describe("What to do beyond sysctl (a kernel module, a service limit, disk space), or null."),
});
export type TuningCheck = z.infer<typeof tuningCheck>;
export const dashboardTuning = z.object({
  checkedAt: z.number().int().describe("Unix milliseconds the readings were made (answers within a minute of it come from the same readings)."),
  warnings: z.number().int().describe("Checks at warn: settings that slow transfers."),
  checks: z.array(tuningCheck).describe("Every check, in `ferry doctor`'s order."),
});
export type DashboardTuning = z.infer<typeof dashboardTuning>;
