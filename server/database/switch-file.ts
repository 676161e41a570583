import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import * as z from "zod";
import { type DatabaseTarget, targetDialect } from "../../contract/database";
import { ConfigError } from "../config";
import { createSecretBox, loadEngineSecret } from "../mail/secret";

/**
 * `<data dir>/database.json`: the database the engine switched to, and a verified copy waiting for
 * the restart that switches to it (docs/database.md). It wins over DATABASE_URL. Its password is
 * sealed with the engine secret (server/mail/secret.ts), so the file alone does not give it away.
 */
export const SWITCH_FILE_NAME = "database.json";
export const switchFilePath = (dataDir: string) => path.join(dataDir, SWITCH_FILE_NAME);

const storedTarget = z.object({
  dialect: targetDialect,
  host: z.string(),
  port: z.number().int(),
  database: z.string(),
  user: z.string(),
  password: z.string().describe("sealed"),
  at: z.number().int(),
});
type StoredTarget = z.infer<typeof storedTarget>;

const switchFile = z.object({
  active: storedTarget.nullable().default(null),
  pending: storedTarget.nullable().default(null),
  lastFailure: z.object({ location: z.string(), at: z.number().int(), message: z.string() }).nullable().default(null),
});
export type SwitchFile = z.infer<typeof switchFile>;

const SEAL_CONTEXT = "database-switch";

export interface SwitchStore {
  readonly file: string;
  read(): SwitchFile | null;
  write(next: SwitchFile): void;
  remove(): void;
  seal(target: DatabaseTarget, at: number): StoredTarget;
  open(stored: StoredTarget): DatabaseTarget;
}

export function createSwitchStore(dataDir: string, secret: string | null): SwitchStore {
  const file = switchFilePath(dataDir);
  let box: ReturnType<typeof createSecretBox> | null = null;
  const secretBox = () => (box ??= createSecretBox(loadEngineSecret(dataDir, secret), "database"));
  return {
    file,
    read() {
      let text: string;
      try {
        text = readFileSync(file, "utf8");
      } catch {
        return null;
      }
      try {
        return switchFile.parse(JSON.parse(text));
      } catch (error) {
        throw new ConfigError(`${file} is not a readable database switch (${(error as Error).message}); remove it to start on DATABASE_URL's database`);
      }
    },
    write(next) {
      // Whole file or nothing: a crash while writing never leaves half a switch.
      const temp = `${file}.tmp`;
      writeFileSync(temp, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
      renameSync(temp, file);
    },
    remove() {
      rmSync(file, { force: true });
    },
    seal(target, at) {
      return { dialect: target.dialect, host: target.host, port: target.port, database: target.database, user: target.user, password: secretBox().seal(target.password, SEAL_CONTEXT), at };
    },
    open(stored) {
      const password = secretBox().open(stored.password, SEAL_CONTEXT);
      if (password === null) throw new ConfigError(`${file}: the database password does not open with this engine's secret (FERRY_SECRET or <data dir>/engine-secret changed); restore the secret, or remove ${file} to start on DATABASE_URL's database`);
      return { dialect: stored.dialect, host: stored.host, port: stored.port, database: stored.database, user: stored.user, password };
    },
  };
}

/** The connection URL of a target (with its password: never logged or answered). */
export function targetUrl(t: DatabaseTarget): string {
  const host = t.host.includes(":") && !t.host.startsWith("[") ? `[${t.host}]` : t.host;
  const auth = `${encodeURIComponent(t.user)}${t.password ? `:${encodeURIComponent(t.password)}` : ""}`;
  return `${t.dialect === "mysql" ? "mysql" : "postgres"}://${auth}@${host}:${t.port}/${encodeURIComponent(t.database)}`;
}

/** A database URL without its password (and without query options, which may hold one). */
export function redactUrl(url: string): string {
  if (url.startsWith("sqlite:")) return url;
  try {
    const u = new URL(url);
    u.password = "";
    u.search = "";
    return u.toString();
  } catch {
    return url.split(":")[0] + "://…";
  }
}
