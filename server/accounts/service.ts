import { randomBytes } from "node:crypto";
import { type Selectable, sql } from "kysely";
import {
  type AdminGroup,
  type AdminUser,
  type CreateGroupBody,
  type CreateUserBody,
  type SpaceUsage,
  type UpdateGroupBody,
  type UpdateUserBody,
  type VirtualDirectory,
  virtualAlias,
} from "../../contract/admin";
import { type AuthSource, UNLISTED_SOURCES } from "../../contract/authentication";
import { normalizePermission } from "../../contract/permissions";
import type { UserInfo } from "../../contract/users";
import { isValidFileName, passwordProblem } from "../../contract/validation";
import { hashPassword } from "../auth/password-hash";
import type { Tokens } from "../auth/tokens";
import { type Clock, toSeconds } from "../clock";
import { type Db, insertReturningId, isUniqueViolation } from "../db/connect";
import { escapeLike } from "../db/like";
import type { GroupsTable, UsersTable } from "../db/schema";
import { fail, FerryError } from "../errors";
import { overlaps, parseVirtualDirectories } from "../files/spaces";
import type { Settings } from "../settings/service";
import type { Homes } from "../storage/homes";
import { normaliseUserPath } from "../storage/paths";
import type { UsageCache } from "../storage/usage";

type UserRow = Selectable<UsersTable>;
/** The stored hash of an account without a local password: no password verifies against it (not a scrypt hash). */
const NO_LOCAL_PASSWORD = "external";
type GroupRow = Selectable<GroupsTable>;

/** The stored virtual directories fit their column (varchar 4096 since migration 0001). */
const VIRTUAL_DIRS_MAX_CHARS = 4096;

const bool = (v: number) => v === 1;
const flag = (v: boolean | undefined) => (v === undefined ? undefined : v ? 1 : 0);
const emailKey = (email: string | undefined | null) => (email ? email.toLowerCase() : null);

function switchesOf(row: UserRow | GroupRow) {
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
function switchColumns(input: SwitchInput) {
  return {
    sync_switch: flag(input.syncSwitch),
    forbid_client_filter_switch: flag(input.forbidClientFilterSwitch),
    trans_ignore_reg_switch: flag(input.transIgnoreRegSwitch),
    trans_ignore_reg: input.transIgnoreReg,
    trans_ignore_size_switch: flag(input.transIgnoreSizeSwitch),
    trans_ignore_size: input.transIgnoreSize,
  };
}

/** Column values for the user settings present in `input`; absent settings stay undefined (unchanged). */
function userColumns(input: UpdateUserBody) {
  return {
    fullname: input.fullname,
    ...(input.email !== undefined ? { email: input.email || null, email_key: emailKey(input.email) } : {}),
    account_type: input.accountType,
    permission: input.permission === undefined ? undefined : normalizePermission(input.permission),
    home: input.home,
    locked: flag(input.locked),
    need_update_pwd: flag(input.needUpdatePwd),
    email_sender_type: input.emailSenderType,
    upload_new_only: flag(input.uploadNewOnly),
    max_upload_speed: input.maxUploadSpeed,
    max_download_speed: input.maxDownloadSpeed,
    file_format_mode: input.fileFormatMode,
    file_formats: input.fileFormats,
    ip_whitelist: input.ipWhitelist,
    notify_admin: flag(input.notifyAdmin),
    share_email_mode: input.shareEmailMode,
    forbidden_paths: input.forbiddenPaths === undefined ? undefined : JSON.stringify(input.forbiddenPaths),
    virtual_dirs: input.virtualDirectories === undefined ? undefined : JSON.stringify(input.virtualDirectories),
    quota: input.quota,
    ...switchColumns(input),
  };
}

function groupColumns(input: UpdateGroupBody) {
  return {
    ...(input.name !== undefined ? { name: input.name, name_key: input.name.toLowerCase() } : {}),
    home: input.home,
    max_upload_speed: input.maxUploadSpeed,
    max_download_speed: input.maxDownloadSpeed,
    upload_new_only: flag(input.uploadNewOnly),
    quota: input.quota,
    ...switchColumns(input),
  };
}

/** `column LIKE %text%` with the text's own % and _ taken literally (see escapeLike). */
function contains(column: string, text: string) {
  return sql<boolean>`${sql.ref(column)} like ${`%${escapeLike(text.toLowerCase())}%`} escape '!'`;
}

const defined = <T extends object>(o: T) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;

export interface AccountsDeps {
  db: Db;
  clock: Clock;
  tokens: Tokens;
  settings: Settings;
  homes: Homes;
  usage: UsageCache;
}

/** Users and groups: the logic behind the admin API, the operator CLI and /api/user/info. */
export function createAccounts({ db, clock, tokens, settings, homes, usage }: AccountsDeps) {
  const k = db.kysely;

  async function userRow(id: number): Promise<UserRow> {
    return (await k.selectFrom("users").selectAll().where("id", "=", id).executeTakeFirst()) ?? fail("UserNotFound");
  }
  async function groupRow(id: number): Promise<GroupRow> {
    return (await k.selectFrom("user_groups").selectAll().where("id", "=", id).executeTakeFirst()) ?? fail("GroupNotFound");
  }

  /** The groups a user belongs to, with the membership's permission and the group home's size (/api/user/info, /api/user/group/list). */
  async function groupList(id: number): Promise<UserInfo["groupList"]> {
    const memberships = await k
      .selectFrom("group_members")
      .innerJoin("user_groups", "user_groups.id", "group_members.group_id")
      .selectAll("user_groups")
      .select("group_members.group_permission")
      .where("group_members.user_id", "=", id)
      .orderBy("user_groups.id")
      .execute();
    return Promise.all(
      memberships.map(async (g) => ({
        groupId: g.id,
        groupName: g.name,
        groupPermission: g.group_permission,
        userHomeSize: await homes.sizeOf(g.home),
        create_time: toSeconds(g.created_at),
        ...switchesOf(g),
      })),
    );
  }

  /** The admin answer's space occupation: counted once, then kept current (server/storage/usage.ts). */
  async function spaceOf(home: string): Promise<SpaceUsage> {
    const { size, files, folders, measuredAt } = await usage.get(home);
    return { used: size, files, folders, measuredAt: toSeconds(measuredAt) };
  }

  /** Creates a home folder; a home created inside another one changes that one's folder count. */
  async function ensureHome(home: string) {
    await homes.ensure(home);
    usage.changed(home);
  }

  /**
   * The default home of a new user or group: `<base>/<name>` when nothing is there, else
   * `<base>/<name>.<random>`. Never a folder that exists already, so an account re-created under a
   * deleted one's name starts empty and never sees the files left behind (docs/security.md 4).
   */
  async function freshHome(base: string, name: string): Promise<string> {
    for (let attempt = 0; attempt < 8; attempt++) {
      const home = attempt === 0 ? `${base}/${name}` : `${base}/${name}.${randomBytes(4).toString("hex")}`;
      if (await homes.claim(home)) return home;
    }
    throw new Error(`no free home folder for ${base}/${name}`);
  }

  /** Runs the row's insert; when it is refused, the home folder claimed for it goes again. */
  async function unclaimOnFailure<T>(claimed: string | null, insert: () => Promise<T>): Promise<T> {
    try {
      return await insert();
    } catch (error) {
      if (claimed) await homes.unclaim(claimed);
      throw error;
    }
  }

  /**
   * The virtual directories as stored (docs/storage.md, "Virtual directories"): each alias passes
   * the alias rule and appears once, ignoring case (1097, InvalidVirtualPathFormat); each target is
   * a folder inside the storage that neither holds the user's `home` nor lies in it nor overlaps
   * another target (so a file has one path in the space and forbidden paths cover it), made when
   * missing (4157, InvalidVirtualDirectory).
   */
  async function virtualDirectories(list: VirtualDirectory[] | undefined, home: string): Promise<VirtualDirectory[] | undefined> {
    if (list === undefined) return undefined;
    const out: VirtualDirectory[] = [];
    for (const v of list) {
      const alias = virtualAlias(v.alias);
      if (alias === null || out.some((o) => o.alias.toLowerCase() === alias.toLowerCase())) return fail("InvalidVirtualPathFormat", { alias: v.alias });
      let path: string;
      try {
        path = normaliseUserPath(v.path);
      } catch {
        return fail("InvalidVirtualDirectory", { path: v.path });
      }
      if (overlaps(path, home) || out.some((o) => overlaps(o.path, path))) fail("InvalidVirtualDirectory", { path: v.path });
      out.push({ alias, path });
    }
    if (JSON.stringify(out).length > VIRTUAL_DIRS_MAX_CHARS) fail("InvalidVirtualDirectory");
    for (const v of out) {
      try {
        await homes.ensure(v.path);
      } catch (error) {
        if (error instanceof FerryError) fail("InvalidVirtualDirectory", { path: v.path });
        throw error;
      }
    }
    return out;
  }

  /** Makes a new account's home; when that fails the account row goes again, so a refused create leaves nothing behind. */
  async function homeOrUndo(home: string, undo: () => Promise<unknown>) {
    try {
      await ensureHome(home);
    } catch (error) {
      await undo();
      throw error;
    }
  }

  async function checkNewPassword(password: string, account: string) {
    const { weakPasswords } = await settings.get("security");
    const problem = passwordProblem(password, account, weakPasswords);
    if (problem === "weak") fail("WeakPassword");
    if (problem) fail("PasswordFormat", { rule: problem });
  }

  async function toAdminUser(row: UserRow, online?: Set<number>): Promise<AdminUser> {
    const groups = await k
      .selectFrom("group_members")
      .innerJoin("user_groups", "user_groups.id", "group_members.group_id")
      .select(["user_groups.id as groupId", "user_groups.name as groupName", "group_members.group_permission as groupPermission"])
      .where("group_members.user_id", "=", row.id)
      .orderBy("user_groups.id")
      .execute();
    const counter = await k.selectFrom("login_counters").select("locked_until").where("key", "=", `account:${row.account_key}`).executeTakeFirst();
    const lockedUntil = counter && counter.locked_until > clock.now() ? toSeconds(counter.locked_until) : 0;
    return {
      id: row.id,
      account: row.account,
      role: row.role,
      online: (online ?? (await tokens.onlineUserIds())).has(row.id),
      lockedUntil,
      createTime: toSeconds(row.created_at),
      groups,
      fullname: row.fullname,
      email: row.email ?? "",
      accountType: row.account_type as AdminUser["accountType"],
      permission: row.permission,
      home: row.home,
      locked: bool(row.locked),
      needUpdatePwd: bool(row.need_update_pwd),
      emailSenderType: row.email_sender_type,
      uploadNewOnly: bool(row.upload_new_only),
      maxUploadSpeed: row.max_upload_speed,
      maxDownloadSpeed: row.max_download_speed,
      fileFormatMode: row.file_format_mode,
      fileFormats: row.file_formats,
      ipWhitelist: row.ip_whitelist,
      notifyAdmin: bool(row.notify_admin),
      shareEmailMode: row.share_email_mode,
      forbiddenPaths: JSON.parse(row.forbidden_paths) as string[],
      virtualDirectories: parseVirtualDirectories(row.virtual_dirs),
      quota: Number(row.quota),
      ...switchesOf(row),
      space: await spaceOf(row.home),
    };
  }

  async function toAdminGroup(row: GroupRow): Promise<AdminGroup> {
    const members = await k
      .selectFrom("group_members")
      .innerJoin("users", "users.id", "group_members.user_id")
      .select(["users.id as userId", "users.account", "group_members.group_permission as groupPermission"])
      .where("group_members.group_id", "=", row.id)
      .orderBy("users.account_key")
      .execute();
    return {
      id: row.id,
      name: row.name,
      createTime: toSeconds(row.created_at),
      members,
      home: row.home,
      maxUploadSpeed: row.max_upload_speed,
      maxDownloadSpeed: row.max_download_speed,
      uploadNewOnly: bool(row.upload_new_only),
      quota: Number(row.quota),
      ...switchesOf(row),
      space: await spaceOf(row.home),
    };
  }

  /** Runs a write and turns a unique-constraint failure into the catalogue's "already exists" code. */
  async function unique<T>(write: () => Promise<T>, onDuplicate: () => Promise<never> | never): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (isUniqueViolation(error)) await onDuplicate();
      throw error;
    }
  }

  async function duplicateUser(account: string | undefined, email: string | null | undefined, exceptId?: number): Promise<never> {
    if (account !== undefined) {
      const same = await k.selectFrom("users").select("id").where("account_key", "=", account.toLowerCase()).executeTakeFirst();
      if (same && same.id !== exceptId) fail("AccountExists");
    }
    return fail("EmailExists");
  }

  const accounts = {
    /**
     * Creates an account. One an authentication way creates (`source` other than local) has no
     * password of its own: it is checked by that way, and its stored hash matches nothing.
     */
    async createUser(input: CreateUserBody, role: "user" | "admin" = "user", source: AuthSource = "local"): Promise<AdminUser> {
      if (source === "local") await checkNewPassword(input.password, input.account);
      input = { ...input, virtualDirectories: await virtualDirectories(input.virtualDirectories, input.home ?? `/users/${input.account}`) };
      // Without a permission, the security settings' default (List;Download unless an administrator changed it).
      const permission = input.permission ?? (await settings.get("security")).defaultPermission;
      const now = clock.now();
      const home = input.home ?? (await freshHome("/users", input.account));
      const id = await unclaimOnFailure(input.home ? null : home, () =>
        unique(
          async () =>
            insertReturningId(db, "users", {
              account: input.account,
              account_key: input.account.toLowerCase(),
              password_hash: source === "local" ? await hashPassword(input.password) : NO_LOCAL_PASSWORD,
              auth_source: source,
              role,
              home,
              permission: normalizePermission(permission),
              need_update_pwd: input.needUpdatePwd === false ? 0 : 1,
              created_at: now,
              updated_at: now,
              ...defined(userColumns({ ...input, home, permission: undefined, needUpdatePwd: undefined })),
            }),
          () => duplicateUser(input.account, input.email),
        ),
      );
      await homeOrUndo(home, () => k.deleteFrom("users").where("id", "=", id).execute());
      return toAdminUser(await userRow(id));
    },

    async updateUser(id: number, patch: UpdateUserBody): Promise<AdminUser> {
      const before = await userRow(id);
      if (before.role === "admin" && patch.locked) fail("InvalidOperation");
      // A new home is checked against the virtual directories kept, as new ones are against the home kept.
      const kept = patch.home === undefined ? undefined : parseVirtualDirectories(before.virtual_dirs);
      const columns = defined(userColumns({ ...patch, virtualDirectories: await virtualDirectories(patch.virtualDirectories ?? kept, patch.home ?? before.home) }));
      await unique(
        () => k.updateTable("users").set({ ...columns, updated_at: clock.now() }).where("id", "=", id).execute(),
        () => duplicateUser(undefined, patch.email, id),
      );
      if (patch.home) await ensureHome(patch.home);
      if (patch.locked) await tokens.revokeUser(id);
      if (patch.locked === false) await k.deleteFrom("login_counters").where("key", "=", `account:${before.account_key}`).execute();
      return toAdminUser(await userRow(id));
    },

    async setPassword(id: number, password: string, needUpdatePwd: boolean): Promise<void> {
      const row = await userRow(id);
      await checkNewPassword(password, row.account);
      await k
        .updateTable("users")
        .set({ password_hash: await hashPassword(password), need_update_pwd: needUpdatePwd ? 1 : 0, updated_at: clock.now() })
        .where("id", "=", id)
        .execute();
      await tokens.revokeUser(id);
    },

    checkNewPassword,

    async deleteUser(id: number): Promise<void> {
      const row = await userRow(id);
      if (row.role === "admin") fail("OnlyOneAdministrator");
      // Sessions, memberships, receipts, share links and their tokens go with the row (ON DELETE
      // CASCADE); the home folder stays, so deleting an account never deletes files by surprise, but
      // no account created later gets it by default (freshHome).
      await k.deleteFrom("users").where("id", "=", id).execute();
    },

    async getUser(id: number): Promise<AdminUser> {
      return toAdminUser(await userRow(id));
    },

    async findByAccount(account: string): Promise<UserRow | undefined> {
      return k.selectFrom("users").selectAll().where("account_key", "=", account.toLowerCase()).executeTakeFirst();
    },

    async findByEmail(email: string): Promise<UserRow | undefined> {
      return k.selectFrom("users").selectAll().where("email_key", "=", email.toLowerCase()).executeTakeFirst();
    },

    async listUsers(page: { pageNum: number; pageSize: number; search?: string }) {
      // Accounts of the system and HTTP ways have no list entry (admin document section 6).
      let query = k.selectFrom("users").where("auth_source", "not in", UNLISTED_SOURCES);
      if (page.search) query = query.where((eb) => eb.or([contains("account_key", page.search!), contains("email_key", page.search!)]));
      const { total } = await query.select((eb) => eb.fn.countAll<number>().as("total")).executeTakeFirstOrThrow();
      const rows = await query
        .selectAll()
        .orderBy("id")
        .limit(page.pageSize)
        .offset((page.pageNum - 1) * page.pageSize)
        .execute();
      const online = await tokens.onlineUserIds();
      const list = await Promise.all(rows.map((r) => toAdminUser(r, online)));
      return { list, total: Number(total), size: page.pageSize, current: page.pageNum };
    },

    groupList,

    /** GET /api/user/info → data.user. */
    async userInfo(id: number): Promise<UserInfo> {
      const row = await userRow(id);
      return {
        userId: row.id,
        account: row.account,
        fullname: row.fullname,
        email: row.email ?? "",
        accountType: row.account_type as UserInfo["accountType"],
        isAdmin: row.role === "admin",
        permission: row.permission,
        groupList: await groupList(id),
        emailSenderType: row.email_sender_type,
        emailAccount: row.email_account,
        needUpdatePwd: bool(row.need_update_pwd),
        create_time: toSeconds(row.created_at),
        ...switchesOf(row),
      };
    },

    async createGroup(input: CreateGroupBody): Promise<AdminGroup> {
      if (!isValidFileName(input.name)) fail("NameFormat");
      const home = input.home ?? (await freshHome("/groups", input.name));
      const id = await unclaimOnFailure(input.home ? null : home, () =>
        unique(
          () => insertReturningId(db, "user_groups", { created_at: clock.now(), ...defined(groupColumns({ ...input, home })) } as never),
          () => fail("GroupNameDuplicate"),
        ),
      );
      await homeOrUndo(home, () => k.deleteFrom("user_groups").where("id", "=", id).execute());
      return toAdminGroup(await groupRow(id));
    },

    async updateGroup(id: number, patch: UpdateGroupBody): Promise<AdminGroup> {
      await groupRow(id);
      if (patch.name !== undefined && !isValidFileName(patch.name)) fail("NameFormat");
      const columns = defined(groupColumns(patch));
      if (Object.keys(columns).length > 0) {
        await unique(() => k.updateTable("user_groups").set(columns).where("id", "=", id).execute(), () => fail("GroupNameDuplicate"));
      }
      if (patch.home) await ensureHome(patch.home);
      return toAdminGroup(await groupRow(id));
    },

    async deleteGroup(id: number): Promise<void> {
      await groupRow(id);
      const member = await k.selectFrom("group_members").select("user_id").where("group_id", "=", id).executeTakeFirst();
      if (member) fail("UserGroupNotEmpty");
      await k.deleteFrom("user_groups").where("id", "=", id).execute();
    },

    async findGroupByName(name: string): Promise<AdminGroup | undefined> {
      const row = await k.selectFrom("user_groups").selectAll().where("name_key", "=", name.trim().toLowerCase()).executeTakeFirst();
      return row && toAdminGroup(row);
    },

    async getGroup(id: number): Promise<AdminGroup> {
      return toAdminGroup(await groupRow(id));
    },

    async listGroups(page: { pageNum: number; pageSize: number; search?: string }) {
      let query = k.selectFrom("user_groups");
      if (page.search) query = query.where(contains("name_key", page.search));
      const { total } = await query.select((eb) => eb.fn.countAll<number>().as("total")).executeTakeFirstOrThrow();
      const rows = await query.selectAll().orderBy("id").limit(page.pageSize).offset((page.pageNum - 1) * page.pageSize).execute();
      return { list: await Promise.all(rows.map(toAdminGroup)), total: Number(total), size: page.pageSize, current: page.pageNum };
    },

    /** Adds a member or changes its permission; takes effect on the member's next call. */
    async setMember(groupId: number, userId: number, groupPermission: number): Promise<AdminGroup> {
      const group = await groupRow(groupId);
      await userRow(userId);
      const permission = normalizePermission(groupPermission);
      const updated = await k
        .updateTable("group_members")
        .set({ group_permission: permission })
        .where("group_id", "=", groupId)
        .where("user_id", "=", userId)
        .executeTakeFirst();
      const existing = await k.selectFrom("group_members").select("user_id").where("group_id", "=", groupId).where("user_id", "=", userId).executeTakeFirst();
      if (Number(updated.numUpdatedRows) === 0 && !existing) {
        await unique(
          () => k.insertInto("group_members").values({ group_id: groupId, user_id: userId, group_permission: permission, created_at: clock.now() }).execute(),
          () => fail("MemberExists"),
        );
      }
      return toAdminGroup(group);
    },

    async removeMember(groupId: number, userId: number): Promise<AdminGroup> {
      const group = await groupRow(groupId);
      const result = await k.deleteFrom("group_members").where("group_id", "=", groupId).where("user_id", "=", userId).executeTakeFirst();
      if (Number(result.numDeletedRows) === 0) fail("MemberMissing");
      return toAdminGroup(group);
    },
  };
  return accounts;
}

export type Accounts = ReturnType<typeof createAccounts>;
