import { randomBytes } from "node:crypto";
import { type Selectable, sql } from "kysely";
import type { SpaceUsage } from "../../contract/admin";
import { toSeconds } from "../clock";
import { isUniqueViolation } from "../db/connect";
import { escapeLike } from "../db/like";
import type { GroupsTable, UsersTable } from "../db/schema";
import type { Homes } from "../storage/homes";
import { locationOf, type StorageRegistry } from "../storage/registry";
import type { UsageCache } from "../storage/usage";

/*
 * What the users (server/users/) and the groups (server/groups/) share: the sync and transfer
 * switches both carry, their home folders, and the write helpers of their lists and forms.
 */

export type UserRow = Selectable<UsersTable>;
export type GroupRow = Selectable<GroupsTable>;

export const bool = (v: number) => v === 1;
export const flag = (v: boolean | undefined) => (v === undefined ? undefined : v ? 1 : 0);

export function switchesOf(row: UserRow | GroupRow) {
  return {
    syncSwitch: bool(row.sync_switch),
    forbidClientFilterSwitch: bool(row.forbid_client_filter_switch),
    transIgnoreRegSwitch: bool(row.trans_ignore_reg_switch),
    transIgnoreReg: row.trans_ignore_reg,
    transIgnoreSizeSwitch: bool(row.trans_ignore_size_switch),
    transIgnoreSize: row.trans_ignore_size,
  };
}

type SwitchInput = Partial<ReturnType<typeof switchesOf>>;
export function switchColumns(input: SwitchInput) {
  return {
    sync_switch: flag(input.syncSwitch),
    forbid_client_filter_switch: flag(input.forbidClientFilterSwitch),
    trans_ignore_reg_switch: flag(input.transIgnoreRegSwitch),
    trans_ignore_reg: input.transIgnoreReg,
    trans_ignore_size_switch: flag(input.transIgnoreSizeSwitch),
    trans_ignore_size: input.transIgnoreSize,
  };
}

/** `column LIKE %text%` with the text's own % and _ taken literally (see escapeLike). */
export function contains(column: string, text: string) {
  return sql<boolean>`${sql.ref(column)} like ${`%${escapeLike(text.toLowerCase())}%`} escape '!'`;
}

export const defined = <T extends object>(o: T) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;

/** Runs a write and turns a unique-constraint failure into the catalogue's "already exists" code. */
export async function unique<T>(write: () => Promise<T>, onDuplicate: () => Promise<never> | never): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error)) await onDuplicate();
    throw error;
  }
}

/**
 * The home folders of users and groups: created, claimed for a new account, and measured, each on
 * its storage (`storageId`, docs/storage.md "Storages").
 */
export function createAccountHomes(homes: Homes, usage: UsageCache, registry: Pick<StorageRegistry, "defaultId" | "get">) {
  /** Creates a home folder; a home created inside another one changes that one's folder count. */
  async function ensureHome(storageId: number, home: string) {
    await homes.ensure(storageId, home);
    usage.changed(locationOf(storageId, home));
  }

  return {
    /** The folders themselves (group homes' sizes, virtual directories' targets). */
    folders: homes,

    ensureHome,

    /** The storage a new home goes on: the one asked for (StorageIdNotExist when there is none), else the default one. */
    async storageFor(asked: number | undefined): Promise<number> {
      if (asked === undefined) return registry.defaultId();
      await registry.get(asked);
      return asked;
    },

    /** The admin answer's space occupation: counted once, then kept current (server/storage/usage.ts). */
    async spaceOf(storageId: number, home: string): Promise<SpaceUsage> {
      const { size, files, folders, measuredAt } = await usage.get(locationOf(storageId, home));
      return { used: size, files, folders, measuredAt: toSeconds(measuredAt) };
    },

    /**
     * The default home of a new user or group: `<base>/<name>` when nothing is there, else
     * `<base>/<name>.<random>`. Never a folder that exists already, so an account re-created under a
     * deleted one's name starts empty and never sees the files left behind (docs/security.md 4).
     */
    async freshHome(storageId: number, base: string, name: string): Promise<string> {
      for (let attempt = 0; attempt < 8; attempt++) {
        const home = attempt === 0 ? `${base}/${name}` : `${base}/${name}.${randomBytes(4).toString("hex")}`;
        if (await homes.claim(storageId, home)) return home;
      }
      throw new Error(`no free home folder for ${base}/${name}`);
    },

    /** Runs the row's insert; when it is refused, the home folder claimed for it goes again. */
    async unclaimOnFailure<T>(storageId: number, claimed: string | null, insert: () => Promise<T>): Promise<T> {
      try {
        return await insert();
      } catch (error) {
        if (claimed) await homes.unclaim(storageId, claimed);
        throw error;
      }
    },

    /** Makes a new account's home; when that fails the account row goes again, so a refused create leaves nothing behind. */
    async homeOrUndo(storageId: number, home: string, undo: () => Promise<unknown>) {
      try {
        await ensureHome(storageId, home);
      } catch (error) {
        await undo();
        throw error;
      }
    },
  };
}

export type AccountHomes = ReturnType<typeof createAccountHomes>;
