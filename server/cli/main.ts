import { parseArgs, type ParseArgsConfig } from "node:util";
import type * as z from "zod";
import { type AdminGroup, type AdminUser, createGroupBody, createUserBody, memberBody, resetPasswordBody } from "../../contract/admin";
import { type ErrorName, errorByCode, formatErrorMessage } from "../../contract/errors";
import { parsePermission, PERMISSION_DEFAULT, PERMISSION_PRESETS, type PermissionPreset, permissionLabels } from "../../contract/permissions";
import { ACCOUNT_TYPES } from "../../contract/users";
import { type Config, ConfigError, loadConfig } from "../config";
import { DOCTOR_USAGE, runDoctor } from "../doctor/command";
import { ensureAdministrator, firstStartBanner, openServices, type Services } from "../services";
import { FerryError } from "../errors";

/**
 * The operator command line: `npm run ferry -- <command>` (docs/cli.md). It opens the engine's
 * database with the engine's configuration (environment, FERRY_CONFIG) and goes through the same
 * account services as the admin API, so every rule of the API applies here too.
 *
 * Exit codes: 0 success, 1 refused by Ferry (a catalogue error such as 1004) or not runnable
 * (configuration, database), 2 bad arguments.
 */

const PASSWORD_ENV = "FERRY_CLI_PASSWORD";

/** Bad command-line arguments: printed with a usage hint, exit code 2. */
class UsageError extends Error {
  constructor(
    message: string,
    readonly usage: string = USAGE,
  ) {
    super(message);
  }
}

/** A catalogue error with a detail the catalogue message cannot carry (which account or group, why). */
class DetailedError extends FerryError {
  constructor(
    name: ErrorName,
    readonly detail: string,
  ) {
    super(name);
  }
}

type Options = NonNullable<ParseArgsConfig["options"]>;
type Values = Record<string, string | boolean | undefined>;
type Action = (services: Services) => Promise<void>;
/** A command that does not open the database (doctor): it gets the configuration and returns the exit code. */
interface Standalone {
  standalone(config: Config): Promise<number>;
}

interface Command {
  /** The command line (its option lines continue with an indented "["), then a description. */
  usage: string;
  options: Options;
  /** Checks the arguments (throwing UsageError) and returns the work to do on the database (or without it). */
  prepare(values: Values): Action | Standalone;
}

const out = (text: string) => process.stdout.write(`${text}\n`);
const err = (text: string) => process.stderr.write(`${text}\n`);

// ---------------------------------------------------------------------------------------------
// Argument helpers

function required(values: Values, name: string, usage: string): string {
  const value = values[name];
  if (typeof value !== "string" || value === "") throw new UsageError(`--${name} is required`, usage);
  return value;
}

function optional(values: Values, name: string): string | undefined {
  const value = values[name];
  return typeof value === "string" ? value : undefined;
}

/** --password, else FERRY_CLI_PASSWORD (keeps the password out of shell history and `ps`). */
function password(values: Values, usage: string): string {
  const given = optional(values, "password") ?? process.env[PASSWORD_ENV];
  if (!given) throw new UsageError(`a password is required: --password P or the environment variable ${PASSWORD_ENV}`, usage);
  return given;
}

function permission(text: string, usage: string): number {
  try {
    return parsePermission(text);
  } catch (error) {
    throw new UsageError(`--permission: ${(error as Error).message}`, usage);
  }
}

/** --permission or --preset (not both); undefined: the security settings' defaultPermission. */
function permissionOrPreset(values: Values, usage: string): number | undefined {
  if (values.permission !== undefined && values.preset !== undefined) throw new UsageError("--permission and --preset: give one of them", usage);
  if (values.permission !== undefined) return permission(String(values.permission), usage);
  if (values.preset === undefined) return undefined;
  const preset = String(values.preset).toLowerCase();
  if (!Object.prototype.hasOwnProperty.call(PERMISSION_PRESETS, preset)) throw new UsageError(`--preset must be one of ${Object.keys(PERMISSION_PRESETS).join(", ")}`, usage);
  return PERMISSION_PRESETS[preset as PermissionPreset];
}

function accountType(text: string, usage: string): number {
  const byName = Object.entries(ACCOUNT_TYPES).find(([name]) => name.toLowerCase() === text.toLowerCase());
  if (byName) return byName[1];
  if (/^\d+$/.test(text)) return Number(text);
  throw new UsageError(`--type must be one of 2 (Normal), 4 (Domain), 5 (Email), 6 (Linux)`, usage);
}

const FIELD_OPTION: Record<string, string> = { account: "--account", password: "--password", accountType: "--type", permission: "--permission", home: "--home", email: "--email", fullname: "--fullname", name: "--name", groupPermission: "--permission" };

/** Validates with the admin API's own schema; a rejection is a usage error naming the option. */
function validate<S extends z.ZodType>(schema: S, input: unknown, usage: string): z.infer<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    const field = String(issue.path[0] ?? "");
    const option = FIELD_OPTION[field] ?? field;
    if (field === "account") return `${option}: 3–30 letters, digits or underscores`;
    if (field === "email") return `${option}: not a valid e-mail address`;
    if (field === "accountType") return `${option}: must be 2 (Normal), 4 (Domain), 5 (Email) or 6 (Linux)`;
    return `${option}: ${issue.message}`;
  });
  throw new UsageError(problems.join("\n"), usage);
}

// ---------------------------------------------------------------------------------------------
// Look-ups by name (the services work by id)

async function userByAccount(s: Services, account: string) {
  const user = await s.users.findByAccount(account);
  if (!user) throw new DetailedError("UserNotFound", `no account "${account}"`);
  return user;
}

/** Every row of a paged list; the services cap a page at 100. */
async function everyPage<T>(list: (page: { pageNum: number; pageSize: number; search?: string }) => Promise<{ list: T[]; total: number }>, search?: string): Promise<T[]> {
  const all: T[] = [];
  for (let pageNum = 1; ; pageNum++) {
    const page = await list({ pageNum, pageSize: 100, search });
    all.push(...page.list);
    if (page.list.length < 100 || all.length >= page.total) return all;
  }
}

async function groupByName(s: Services, name: string): Promise<AdminGroup> {
  const found = await s.groups.findGroupByName(name);
  if (!found) throw new DetailedError("GroupNotFound", `no group "${name}"`);
  return found;
}

// ---------------------------------------------------------------------------------------------
// Output

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join("  ").trimEnd();
  return [line(header), ...rows.map(line)].join("\n");
}

const labels = (mask: number) => permissionLabels(mask) || "-";
const typeName = (type: number) => `${Object.entries(ACCOUNT_TYPES).find(([, v]) => v === type)?.[0] ?? "?"}(${type})`;

function lockState(user: AdminUser): string {
  if (user.locked) return "yes";
  if (user.lockedUntil > 0) return `until ${new Date(user.lockedUntil * 1000).toISOString()}`;
  return "no";
}

function userTable(users: AdminUser[]): string {
  return table(
    ["ID", "ACCOUNT", "ROLE", "TYPE", "PERMISSION", "LOCKED", "GROUPS"],
    users.map((u) => [
      String(u.id),
      u.account,
      u.role,
      typeName(u.accountType),
      labels(u.permission),
      lockState(u),
      u.groups.map((g) => `${g.groupName}(${labels(g.groupPermission)})`).join(", ") || "-",
    ]),
  );
}

function groupTable(groups: AdminGroup[]): string {
  return table(
    ["ID", "NAME", "HOME", "MEMBERS"],
    groups.map((g) => [String(g.id), g.name, g.home, g.members.map((m) => `${m.account}(${labels(m.groupPermission)})`).join(", ") || "-"]),
  );
}

// ---------------------------------------------------------------------------------------------
// Commands

const QUOTA_UNITS: Record<string, number> = { "": 1, B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3, TB: 1024 ** 4 };

/** "0", "5000", "500MB", "10 GB" (units of 1024) → bytes. */
function quota(text: string, usage: string): number {
  const match = /^(\d+)\s*([KMGT]?B)?$/i.exec(text.trim());
  const bytes = match ? Number(match[1]) * QUOTA_UNITS[(match[2] ?? "").toUpperCase()]! : NaN;
  if (!Number.isSafeInteger(bytes)) throw new UsageError("--quota: a size in bytes, or with KB, MB, GB or TB (0 = unlimited)", usage);
  return bytes;
}

const FORCE_CHANGE_NOTE = "by default the user must change the password at the first sign-in; --no-force-change skips that";

const commands: Record<string, Command> = {
  "user create": {
    usage: `ferry user create --account A [--password P] [--permission list,download,upload|134 | --preset personal|readonly]
                  [--type 2|4|5|6] [--home /path] [--email E] [--fullname N] [--quota 10GB] [--no-force-change]
  Creates a user (home /users/<account>, or /users/<account>.<hex> when that folder exists, no quota).
  Permission: --permission, or a --preset: personal = full personal use (${labels(PERMISSION_PRESETS.personal)}),
  readonly = ${labels(PERMISSION_PRESETS.readonly)}. With neither, the default permission of the security settings
  (defaultPermission: ${labels(PERMISSION_DEFAULT)} unless an administrator changed it); the output names what was given.
  The password may come from ${PASSWORD_ENV} instead of --password; ${FORCE_CHANGE_NOTE}.`,
    options: {
      account: { type: "string" },
      password: { type: "string" },
      permission: { type: "string" },
      preset: { type: "string" },
      type: { type: "string" },
      home: { type: "string" },
      email: { type: "string" },
      fullname: { type: "string" },
      quota: { type: "string" },
      "no-force-change": { type: "boolean" },
    },
    prepare(v) {
      const usage = this.usage;
      const input = validate(
        createUserBody,
        {
          account: required(v, "account", usage),
          password: password(v, usage),
          permission: permissionOrPreset(v, usage),
          accountType: v.type === undefined ? undefined : accountType(String(v.type), usage),
          home: optional(v, "home"),
          email: optional(v, "email"),
          fullname: optional(v, "fullname"),
          quota: v.quota === undefined ? undefined : quota(String(v.quota), usage),
          needUpdatePwd: !v["no-force-change"],
        },
        usage,
      );
      return async (s) => {
        const user = await s.users.createUser(input);
        out(`Created user ${user.account} (id ${user.id}): type ${typeName(user.accountType)}, permission ${labels(user.permission)}, home ${user.home}.`);
        out(user.needUpdatePwd ? "The password must be changed at the first sign-in." : "The password is ready to use.");
      };
    },
  },

  "user list": {
    usage: `ferry user list [--search S] [--json]
  Lists users (search: part of the account or e-mail). --json prints the full records as a JSON array.`,
    options: { search: { type: "string" }, json: { type: "boolean" } },
    prepare(v) {
      const search = optional(v, "search");
      if (search !== undefined && search.length > 64) throw new UsageError("--search: at most 64 characters", this.usage);
      return async (s) => {
        const users = await everyPage(s.users.listUsers, search);
        if (v.json) out(JSON.stringify(users, null, 2));
        else out(users.length ? userTable(users) : "No users.");
      };
    },
  },

  "user lock": {
    usage: `ferry user lock --account A
  Locks a user: sign-in is refused (1050) and its sessions end at once.`,
    options: { account: { type: "string" } },
    prepare(v) {
      const account = required(v, "account", this.usage);
      return async (s) => {
        const row = await userByAccount(s, account);
        if (row.role === "admin") throw new DetailedError("InvalidOperation", "the administrator cannot be locked");
        const user = await s.users.updateUser(row.id, { locked: true });
        out(`Locked user ${user.account}; its sessions have been ended.`);
      };
    },
  },

  "user unlock": {
    usage: `ferry user unlock --account A
  Unlocks a user (also ends an automatic lockout after wrong passwords).`,
    options: { account: { type: "string" } },
    prepare(v) {
      const account = required(v, "account", this.usage);
      return async (s) => {
        const user = await s.users.updateUser((await userByAccount(s, account)).id, { locked: false });
        out(`Unlocked user ${user.account}.`);
      };
    },
  },

  "user password": {
    usage: `ferry user password --account A [--password P] [--no-force-change]
  Sets a new password (password rules apply) and ends the user's sessions.
  The password may come from ${PASSWORD_ENV} instead of --password; ${FORCE_CHANGE_NOTE}.`,
    options: { account: { type: "string" }, password: { type: "string" }, "no-force-change": { type: "boolean" } },
    prepare(v) {
      const account = required(v, "account", this.usage);
      const body = validate(resetPasswordBody, { password: password(v, this.usage), needUpdatePwd: !v["no-force-change"] }, this.usage);
      return async (s) => {
        const user = await userByAccount(s, account);
        await s.users.setPassword(user.id, body.password, body.needUpdatePwd);
        out(`Password of ${user.account} changed; its sessions have been ended.`);
        out(body.needUpdatePwd ? "The password must be changed at the next sign-in." : "The password is ready to use.");
      };
    },
  },

  "user delete": {
    usage: `ferry user delete --account A
  Deletes a user with its sessions and group memberships. Its home folder and files stay.`,
    options: { account: { type: "string" } },
    prepare(v) {
      const account = required(v, "account", this.usage);
      return async (s) => {
        const user = await userByAccount(s, account);
        if (user.role === "admin") throw new DetailedError("OnlyOneAdministrator", "the administrator cannot be deleted");
        await s.users.deleteUser(user.id);
        out(`Deleted user ${user.account} (id ${user.id}); the home folder ${user.home} was kept.`);
      };
    },
  },

  "group create": {
    usage: `ferry group create --name N [--home /path] [--quota 10GB]
  Creates a group (default home /groups/<name>, or /groups/<name>.<hex> when that folder exists, no quota).`,
    options: { name: { type: "string" }, home: { type: "string" }, quota: { type: "string" } },
    prepare(v) {
      const quotaBytes = v.quota === undefined ? undefined : quota(String(v.quota), this.usage);
      const input = validate(createGroupBody, { name: required(v, "name", this.usage), home: optional(v, "home"), quota: quotaBytes }, this.usage);
      return async (s) => {
        const group = await s.groups.createGroup(input);
        out(`Created group ${group.name} (id ${group.id}), home ${group.home}.`);
      };
    },
  },

  "group list": {
    usage: `ferry group list [--json]
  Lists groups with their members. --json prints the full records as a JSON array.`,
    options: { json: { type: "boolean" } },
    prepare(v) {
      return async (s) => {
        const groups = await everyPage(s.groups.listGroups);
        if (v.json) out(JSON.stringify(groups, null, 2));
        else out(groups.length ? groupTable(groups) : "No groups.");
      };
    },
  },

  "group add-member": {
    usage: `ferry group add-member --group N --account A --permission list,download,upload|134
  Adds a user to a group with that group permission, or changes the permission of a member.`,
    options: { group: { type: "string" }, account: { type: "string" }, permission: { type: "string" } },
    prepare(v) {
      const name = required(v, "group", this.usage);
      const account = required(v, "account", this.usage);
      const body = validate(memberBody, { groupPermission: permission(required(v, "permission", this.usage), this.usage) }, this.usage);
      return async (s) => {
        const group = await groupByName(s, name);
        const user = await userByAccount(s, account);
        const updated = await s.groups.setMember(group.id, user.id, body.groupPermission);
        const member = updated.members.find((m) => m.userId === user.id);
        out(`${user.account} is a member of ${updated.name} with permission ${labels(member?.groupPermission ?? body.groupPermission)}.`);
      };
    },
  },

  "group remove-member": {
    usage: `ferry group remove-member --group N --account A
  Removes a user from a group (its files in the group home stay).`,
    options: { group: { type: "string" }, account: { type: "string" } },
    prepare(v) {
      const name = required(v, "group", this.usage);
      const account = required(v, "account", this.usage);
      return async (s) => {
        const group = await groupByName(s, name);
        const user = await userByAccount(s, account);
        await s.groups.removeMember(group.id, user.id);
        out(`Removed ${user.account} from ${group.name}.`);
      };
    },
  },

  doctor: {
    usage: DOCTOR_USAGE,
    options: { json: { type: "boolean" }, apply: { type: "boolean" }, out: { type: "string" } },
    prepare(v) {
      const file = optional(v, "out") ?? "ferry-sysctl.conf";
      if (file === "") throw new UsageError("--out: a file name", this.usage);
      if (v.apply && v.out !== undefined) throw new UsageError("--apply writes /etc/sysctl.d/60-ferry.conf itself: --out does not go with it", this.usage);
      return { standalone: (config) => runDoctor(config, { json: v.json === true, apply: v.apply === true, out: file }, out, err) };
    },
  },
};

/** The command line part of a usage text: its first line and the option lines that continue it. */
function synopsisOf(usage: string): string {
  const lines = usage.split("\n");
  const end = lines.findIndex((line, i) => i > 0 && !/^\s+\[/.test(line));
  return lines.slice(0, end === -1 ? undefined : end).join("\n");
}

const USAGE = `Ferry operator command line: npm run ferry -- <command> [options]

Works directly on the engine's database (same configuration: DATABASE_URL, FERRY_DATA_DIR,
FERRY_CONFIG, …) through the same rules as the admin API. The engine may be running.
doctor checks the host's tuning instead and opens no database.

Commands:
${Object.values(commands)
  .map((c) => synopsisOf(c.usage).replace(/^ferry /, "  ").replace(/\n {18}/g, `\n${" ".repeat(14)}`))
  .join("\n")}
  help [command]

Passwords: instead of --password, set ${PASSWORD_ENV} so the password stays out of the shell history.
Permissions: names (${permissionLabels(0xffff).split(";").join(", ").toLowerCase()}) separated by commas, or a number.
Exit codes: 0 done, 1 refused (e.g. "error 1004: …") or cannot run, 2 bad arguments, 3 doctor found warnings.
Details: ferry help <command>, or docs/cli.md.`;

// ---------------------------------------------------------------------------------------------
// Main

function commandUsage(words: string[]): string | undefined {
  if (words.length === 0) return USAGE;
  const exact = commands[words.slice(0, 2).join(" ")];
  if (exact) return `Usage: ${exact.usage}`;
  const family = Object.entries(commands).filter(([name]) => name.startsWith(`${words[0]} `));
  return family.length ? `Usage:\n${family.map(([, c]) => `  ${synopsisOf(c.usage).replace(/\n {18}/g, `\n${" ".repeat(20)}`)}`).join("\n")}` : undefined;
}

function describeError(error: FerryError): string {
  const def = errorByCode(error.code);
  const message = def ? formatErrorMessage(def, "en", error.vars) : error.errorName;
  return `error ${error.code}: ${message}${error instanceof DetailedError ? ` (${error.detail})` : ""}`;
}

/** Returns the exit code. */
async function run(argv: string[]): Promise<number> {
  if (argv.length === 0 || argv[0] === "help" || argv[0] === "--help" || argv[0] === "-h") {
    const topic = argv.slice(1).filter((w) => !w.startsWith("-"));
    const usage = commandUsage(topic);
    if (!usage) {
      err(`Unknown command: ${topic.join(" ")}\n\n${USAGE}`);
      return 2;
    }
    out(usage);
    return 0;
  }
  // The command is the leading words (at most two) before the first option.
  const words: string[] = [];
  for (const arg of argv) {
    if (words.length === 2 || arg.startsWith("-")) break;
    words.push(arg);
  }
  const rest = argv.slice(words.length);
  const wantsHelp = rest.includes("--help") || rest.includes("-h");
  const command = commands[words.join(" ")];
  if (!command) {
    const hint = commandUsage(words);
    if (hint && wantsHelp) {
      out(hint);
      return 0;
    }
    const problem = words.length === 1 && hint ? `"${words[0]}" needs a command:` : `Unknown command: ${words.join(" ") || argv[0]}`;
    err(`${problem}\n\n${hint ?? USAGE}`);
    return 2;
  }
  if (wantsHelp) {
    out(`Usage: ${command.usage}`);
    return 0;
  }

  let action: Action | Standalone;
  try {
    const { values } = parseArgs({ args: rest, options: command.options, strict: true, allowPositionals: false });
    action = command.prepare(values as Values);
  } catch (error) {
    const usage = error instanceof UsageError ? error.usage : command.usage;
    err(`${(error as Error).message}\n\nUsage: ${usage}`);
    return 2;
  }

  const config = loadConfig();
  if (typeof action !== "function") return action.standalone(config);
  const services = await openServices(config);
  try {
    const initial = await ensureAdministrator(services);
    if (initial) {
      // stderr, so that stdout stays clean for --json.
      err(firstStartBanner(config, initial));
    }
    await action(services);
    return 0;
  } finally {
    await services.db.close();
  }
}

run(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof FerryError) err(describeError(error));
    else if (error instanceof ConfigError) err(error.message);
    else err(`error: ${error instanceof Error ? (process.env.FERRY_LOG_LEVEL === "debug" || process.env.FERRY_LOG_LEVEL === "trace" ? error.stack : error.message) : String(error)}`);
    process.exitCode = 1;
  },
);
