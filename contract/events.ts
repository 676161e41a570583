import * as z from "zod";
import { listQuery } from "./admin";

/*
 * Events (admin document section 3 "Event", docs/events.md): when a file operation of a type
 * happens, an activated event runs an executable the administrator placed in the engine's events
 * directory (FERRY_EVENT_BIN_DIR, set at install, never from the web), with arguments built from a
 * command line template, never through a shell.
 */

/** The spec's event types, in its order. */
export const EVENT_TYPES = ["uploaded", "upload_failed", "downloaded", "download_failed", "file_deleted", "folder_deleted", "created", "folder_renamed", "file_renamed"] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The spec's only operation. */
export const EVENT_OPERATIONS = ["run_executable"] as const;
export const EVENT_STATUSES = ["activated", "inactivated"] as const;
export type EventStatus = (typeof EVENT_STATUSES)[number];

/**
 * What a command line may name, each replaced inside one argument: `{path}` the item's path in
 * its space, `{newPath}` a rename's new path (else empty), `{user}` the account, `{size}` bytes
 * (empty when unknown), `{time}` ISO 8601 UTC, `{type}` the event type, `{group}` the group space's
 * id (0: the personal space). `{{` and `}}` are literal braces.
 */
export const EVENT_PLACEHOLDERS = ["path", "newPath", "user", "size", "time", "type", "group"] as const;
export type EventPlaceholder = (typeof EVENT_PLACEHOLDERS)[number];
export type EventValues = Record<EventPlaceholder, string>;

/** Limits (docs/events.md). */
export const EVENT_NAME_MAX = 64;
export const EVENT_REMARK_MAX = 255;
export const EVENT_EXECUTABLE_MAX = 1024;
export const EVENT_COMMAND_LINE_MAX = 2048;
export const EVENT_ARGS_MAX = 64;
export const EVENT_WAIT_MIN = 1;
export const EVENT_WAIT_MAX = 3600;

export type TokenizeResult = { args: string[] } | { error: "unterminated_quote" | "trailing_backslash" | "too_many" | "unknown_placeholder" | "unbalanced_brace" | "control_character"; at?: string };

/**
 * Control characters a command line may not hold: NUL (no argument can carry it: it ends a C
 * string) and the other C0 controls and DEL, which have no business in a template. Tab, line feed,
 * vertical tab, form feed and carriage return are white space: they separate arguments.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000e-\u001f\u007f]/;

/**
 * The command line template split into an argument vector (docs/events.md, "Command line"), once,
 * when the event is saved: whitespace separates arguments; '…' keeps everything inside as it is;
 * "…" keeps everything inside, where \" and \\ stand for " and \; outside quotes a backslash keeps
 * the next character as it is. No variables, globs, pipes or redirections: there is no shell.
 * Placeholders are checked here and replaced later, inside each argument. A control character
 * other than white space (NUL above all) is refused.
 */
export function tokenizeCommandLine(text: string): TokenizeResult {
  const control = CONTROL.exec(text);
  if (control) return { error: "control_character", at: `U+${control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}` };
  const args: string[] = [];
  let current = "";
  let inArg = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) return { error: "unterminated_quote" };
      current += text.slice(i + 1, end);
      inArg = true;
      i = end;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < text.length && text[j] !== '"'; j++) {
        if (text[j] === "\\" && (text[j + 1] === '"' || text[j + 1] === "\\")) j++;
        current += text[j];
      }
      if (j >= text.length) return { error: "unterminated_quote" };
      inArg = true;
      i = j;
    } else if (c === "\\") {
      if (i + 1 >= text.length) return { error: "trailing_backslash" };
      current += text[++i];
      inArg = true;
    } else if (/\s/.test(c)) {
      if (inArg) args.push(current);
      current = "";
      inArg = false;
    } else {
      current += c;
      inArg = true;
    }
  }
  if (inArg) args.push(current);
  if (args.length > EVENT_ARGS_MAX) return { error: "too_many" };
  for (const arg of args) {
    const problem = placeholderProblem(arg);
    if (problem) return problem;
  }
  return { args };
}

const PLACEHOLDER = /\{\{|\}\}|\{([A-Za-z]*)\}|[{}]/g;

function placeholderProblem(arg: string): TokenizeResult | null {
  for (const m of arg.matchAll(PLACEHOLDER)) {
    if (m[0] === "{{" || m[0] === "}}") continue;
    if (m[0] === "{" || m[0] === "}") return { error: "unbalanced_brace", at: arg };
    if (!(EVENT_PLACEHOLDERS as readonly string[]).includes(m[1]!)) return { error: "unknown_placeholder", at: m[0] };
  }
  return null;
}

/** One argument with its placeholders replaced: the values are data, whatever bytes they hold, and stay inside this one argument. */
export function substituteArgument(arg: string, values: EventValues): string {
  return arg.replace(PLACEHOLDER, (m, name: string | undefined) => (m === "{{" ? "{" : m === "}}" ? "}" : name ? values[name as EventPlaceholder] : m));
}

const executable = z
  .string()
  .trim()
  .min(1)
  .max(EVENT_EXECUTABLE_MAX)
  .refine((p) => p.startsWith("/") && !p.includes("\0"), { message: "an absolute path" })
  .describe("Absolute path of the executable; it must lie (after resolving links) inside the engine's events directory, FERRY_EVENT_BIN_DIR.");

export const eventFields = {
  name: z.string().trim().min(1).max(EVENT_NAME_MAX),
  type: z.enum(EVENT_TYPES).describe("The operation that runs it (docs/events.md, \"Types\")."),
  // Any text here: one the engine does not know is its 4145 "invalid event operation", not a 400.
  operation: z.string().max(32).default("run_executable").describe('"run_executable", the only operation.'),
  status: z.enum(EVENT_STATUSES).default("activated"),
  remark: z.string().max(EVENT_REMARK_MAX).default(""),
  executable,
  commandLine: z
    .string()
    .max(EVENT_COMMAND_LINE_MAX)
    .default("")
    .describe("Argument template: split into arguments when saved ('…', \"…\", \\ quote), then {path} {newPath} {user} {size} {time} {type} {group} replaced inside each argument."),
  waitSeconds: z.number().int().min(EVENT_WAIT_MIN).max(EVENT_WAIT_MAX).default(30).describe("Completion wait time: past it the executable and its children are stopped (SIGTERM, then SIGKILL)."),
};

export const createEventBody = z.object(eventFields).strict();
export type CreateEventBody = z.output<typeof createEventBody>;
export const updateEventBody = z
  .object({
    name: eventFields.name,
    type: eventFields.type,
    operation: z.string().max(32),
    status: z.enum(EVENT_STATUSES),
    remark: z.string().max(EVENT_REMARK_MAX),
    executable,
    commandLine: z.string().max(EVENT_COMMAND_LINE_MAX),
    waitSeconds: eventFields.waitSeconds,
  })
  .partial()
  .strict();
export type UpdateEventBody = z.output<typeof updateEventBody>;

export const eventStatusBody = z.object({ status: z.enum(EVENT_STATUSES) }).strict();

export const adminEvent = z.object({
  id: z.number().int(),
  name: z.string(),
  type: z.enum(EVENT_TYPES),
  operation: z.enum(EVENT_OPERATIONS),
  status: z.enum(EVENT_STATUSES),
  remark: z.string(),
  executable: z.string(),
  commandLine: z.string(),
  /** The command line as the argument vector it was split into. */
  args: z.array(z.string()),
  waitSeconds: z.number().int(),
  /** Unix seconds. */
  createTime: z.number().int(),
  updateTime: z.number().int(),
});
export type AdminEvent = z.output<typeof adminEvent>;

export const eventListQuery = listQuery
  .extend({
    type: z.enum(EVENT_TYPES).optional(),
    status: z.enum(EVENT_STATUSES).optional(),
  })
  .strict();

/** One run of an event (the run log). */
export const eventRun = z.object({
  id: z.number().int(),
  eventId: z.number().int(),
  /** Unix ms when it started. */
  at: z.number(),
  /** The event type that ran it, or "test" for a test run. */
  trigger: z.string(),
  path: z.string(),
  user: z.string(),
  /** The exit code; null when it was ended by a signal or never started. */
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  timedOut: z.boolean(),
  durationMs: z.number().int(),
  stdout: z.string(),
  stderr: z.string(),
  /** Why it did not run or did not finish on its own: refused executable, spawn error, queue full. Empty when it ran. */
  error: z.string(),
});
export type EventRun = z.output<typeof eventRun>;

export const eventRunsQuery = z
  .object({
    pageNum: z.coerce.number().int().min(1).default(1),
    pageSize: z.coerce.number().int().min(1).max(100).default(10),
  })
  .strict();

/** What a test run answers: the run, as the log keeps it. */
export const eventTestData = eventRun;
