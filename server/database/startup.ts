import { errorByCode, formatErrorMessage } from "../../contract/errors";
import type { Config } from "../config";
import { ConfigError } from "../config";
import { openDatabase } from "../db/connect";
import { FerryError } from "../errors";
import { type Connection, copyDatabase, type CopyProgress, openTarget } from "./copy";
import { createSwitchStore, redactUrl, targetUrl } from "./switch-file";

/*
 * The start-up side of a database switch (docs/database.md). A verified copy waits in the switch
 * file as `pending`; the next start copies again, this time with the engine not yet serving, so no
 * write made after the administrator's copy is lost, then makes it `active`. An `active` switch is
 * the engine's database from then on, whatever DATABASE_URL says.
 */

/** The database URL of the active switch, if any (the CLI and the engine both run on it). */
export function switchedDatabaseUrl(config: Pick<Config, "dataDir" | "secret">): { url: string; file: string } | null {
  const store = createSwitchStore(config.dataDir, config.secret);
  const file = store.read();
  if (!file?.active) return null;
  return { url: targetUrl(store.open(file.active)), file: store.file };
}

/** The message of an engine that cannot reach the database it switched to: it never falls back to the older one. */
export function switchedDatabaseDown(url: string, file: string, error: unknown): ConfigError {
  return new ConfigError(
    `Cannot open the database Ferry switched to (${redactUrl(url)}): ${(error as Error).message}\n` +
      `Start that database server, or remove ${file} to go back to DATABASE_URL's database (it holds the data from before the switch only).`,
  );
}

/**
 * Completes a pending switch before the engine serves: copies the current database into the
 * target again and makes the target active. A failure leaves the current database in use and
 * unchanged, noted as `lastFailure` for the database page.
 */
export async function settlePendingSwitch(config: Config, log: (line: string) => void): Promise<void> {
  const store = createSwitchStore(config.dataDir, config.secret);
  const file = store.read();
  if (!file?.pending) return;
  const target = store.open(file.pending);
  const location = redactUrl(targetUrl(target));
  const active = file.active ? targetUrl(store.open(file.active)) : null;
  const sourceUrl = active ?? config.databaseUrl;
  log(`database switch: copying ${redactUrl(sourceUrl)} into ${location} before serving`);
  let connection: Connection | null = null;
  try {
    // Brought to this engine's migrations first, as a normal start would, so both sides match.
    await (await openDatabase(sourceUrl)).close();
    connection = await openTarget(target);
    const progress: CopyProgress = { phase: "connecting", table: null, rowsDone: 0, rowsTotal: 0, tables: [] };
    // The administrator's copy is this engine's own: its tables are replaced.
    await copyDatabase({ sourceUrl, target: connection, targetInfo: target, replace: true, progress });
    store.write({ active: file.pending, pending: null, lastFailure: null });
    log(`database switch: ${progress.rowsDone} rows in ${progress.tables.length} tables copied and verified; now running on ${location}`);
  } catch (error) {
    const message = error instanceof FerryError ? formatErrorMessage(errorByCode(error.code)!, "en", error.vars) : error instanceof Error ? error.message : String(error);
    store.write({ active: file.active, pending: null, lastFailure: { location, at: Date.now(), message } });
    log(`database switch to ${location} failed, staying on ${redactUrl(sourceUrl)} unchanged: ${message}`);
  } finally {
    await connection?.kysely.destroy().catch(() => {});
  }
}
