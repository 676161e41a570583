import { type Insertable, type Kysely, sql } from "kysely";
import { type AdminUser, type CreateUserBody, type UpdateUserBody, type USER_ORDER_BY, type VirtualDirectory, virtualAlias } from "../../contract/admin";

type UserOrderBy = (typeof USER_ORDER_BY)[number];
import { type AuthSource, UNLISTED_SOURCES } from "../../contract/authentication";
import { EMAIL_SENDER } from "../../contract/mail";
import { normalizePermission } from "../../contract/permissions";
import type { UserInfo } from "../../contract/users";
import { passwordProblem } from "../../contract/validation";
import { type AccountHomes, bool, contains, defined, flag, switchColumns, switchesOf, unique, type UserRow } from "../accounts/shared";
import { hashPassword } from "../auth/password-hash";
import type { Tokens } from "../auth/tokens";
import { type Clock, toSeconds } from "../clock";
import { type Db, insertReturningId } from "../db/connect";
import type { Database } from "../db/schema";
import { fail, FerryError } from "../errors";
import { overlaps, parseVirtualDirectories } from "../files/spaces";
import type { Settings } from "../settings/service";
import { normaliseUserPath } from "../storage/paths";
import { connectionsIn, connectionsOf, type UserConnections } from "./connections";

/** The stored hash of an account without a local password: no password verifies against it (not a scrypt hash). */
const NO_LOCAL_PASSWORD = "external";

/** The stored virtual directories fit their column (varchar 4096 since migration 0001). */
const VIRTUAL_DIRS_MAX_CHARS = 4096;

const emailKey = (email: string | undefined | null) => (email ? email.toLowerCase() : null);

/** Column values for the user settings present in `input`; absent settings stay undefined (unchanged). */
function userColumns(input: UpdateUserBody) {
  return {
    fullname: input.fullname,
    ...(input.email !== undefined ? { email: input.email || null, email_key: emailKey(input.email) } : {}),
    account_type: input.accountType,
    permission: input.permission === undefined ? undefined : normalizePermission(input.permission),
    home: input.home,
    storage_id: input.storageId,
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

export interface UsersDeps {
  db: Db;
  clock: Clock;
  tokens: Tokens;
  settings: Settings;
  homes: AccountHomes;
  /** User accounts the licence allows (docs/licence.md); null or absent: unlimited. */
  userLimit?: () => Promise<number | null>;
}

/** Refuses a new account when the user accounts (the administrator not counted) already reach `limit` (4464). */
async function checkUserLimit(k: Kysely<Database>, limit: number): Promise<void> {
  const row = await k.selectFrom("users").select((eb) => eb.fn.countAll<number | string>().as("n")).where("role", "=", "user").executeTakeFirst();
  if (Number(row?.n ?? 0) >= limit) fail("UserLimitReached", null, { limit });
}

/** Users: the logic behind the admin API, the operator CLI, sign-in and /api/user/info. */

export function createUsers({ db, clock, tokens, settings, homes, userLimit }: UsersDeps) {
  const k = db.kysely;

  async function userRow(id: number): Promise<UserRow> {
    return (await k.selectFrom("users").selectAll().where("id", "=", id).executeTakeFirst()) ?? fail("UserNotFound");
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
        userHomeSize: await homes.folders.sizeOf(g.storage_id, g.home),
        create_time: toSeconds(g.created_at),
        ...switchesOf(g),
      })),
    );
  }

  /**
   * The virtual directories as stored (docs/storage.md, "Virtual directories"): each alias passes
   * the alias rule and appears once, ignoring case (1097, InvalidVirtualPathFormat); each target is
   * a folder inside the storage that neither holds the user's `home` nor lies in it nor overlaps
   * another target (so a file has one path in the space and forbidden paths cover it), made when
   * missing (4157, InvalidVirtualDirectory). Each target is on a storage (absent: the home's;
   * 4004 when there is no such storage); overlaps only matter on one storage.
   */
  async function virtualDirectories(list: VirtualDirectory[] | undefined, home: string, homeStorage: number): Promise<VirtualDirectory[] | undefined> {
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
      const storageId = await homes.storageFor(v.storageId ?? homeStorage);
      if ((storageId === homeStorage && overlaps(path, home)) || out.some((o) => o.storageId === storageId && overlaps(o.path, path))) fail("InvalidVirtualDirectory", { path: v.path });
      out.push({ alias, path, storageId });
    }
    if (JSON.stringify(out).length > VIRTUAL_DIRS_MAX_CHARS) fail("InvalidVirtualDirectory");
    for (const v of out) {
      try {
        await homes.folders.ensure(v.storageId!, v.path);
      } catch (error) {
        if (error instanceof FerryError) fail("InvalidVirtualDirectory", { path: v.path });
        throw error;
      }
    }
    return out;
  }

  async function checkNewPassword(password: string, account: string) {
    const { weakPasswords } = await settings.get("security");
    const problem = passwordProblem(password, account, weakPasswords);
    if (problem === "weak") fail("WeakPassword");
    if (problem) fail("PasswordFormat", { rule: problem });
  }

  /** The admin answer of a user; a list passes what it looked up for its whole page at once. */
  async function toAdminUser(row: UserRow, page?: { connections: Map<number, UserConnections> }): Promise<AdminUser> {
    const { connections } = page ?? { connections: await connectionsOf(db, clock, [row.id]) };
    const here = connectionsIn(connections, row.id);
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
      // Online: a session with a live access token, or a desktop client whose socket is up (even
      // when its session's token lapsed); both are what the connections count.
      online: here.connections > 0,
      connections: here.connections,
      addresses: here.addresses,
      lockedUntil,
      createTime: toSeconds(row.created_at),
      groups,
      fullname: row.fullname,
      email: row.email ?? "",
      accountType: row.account_type as AdminUser["accountType"],
      permission: row.permission,
      home: row.home,
      storageId: row.storage_id,
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
      // The General settings' user space statistics: off, the console asks for no walk of the home.
      space: (await settings.get("general")).userSpaceStatistics ? await homes.spaceOf(row.storage_id, row.home) : null,
    };
  }

  /**
   * Inserts a user row; under a licence's user limit (`limit` not null) the count and the insert are
   * one transaction that first takes a lock every such creation takes (the administrator's row, FOR
   * UPDATE; SQLite runs one writing transaction at a time anyway), so two creations at once — on one
   * engine or on several sharing the database — cannot both pass the count and overshoot the limit.
   */
  async function limitedInsert(limit: number | null, values: Insertable<Database["users"]>): Promise<number> {
    if (limit === null) return insertReturningId(db, "users", values);
    return k.transaction().execute(async (trx) => {
      if (db.dialect !== "sqlite") await trx.selectFrom("users").select("id").where("role", "=", "admin").forUpdate().execute();
      await checkUserLimit(trx, limit);
      return insertReturningId({ ...db, kysely: trx }, "users", values);
    });
  }

  async function duplicateUser(account: string | undefined, email: string | null | undefined, exceptId?: number): Promise<never> {
    if (account !== undefined) {
      const same = await k.selectFrom("users").select("id").where("account_key", "=", account.toLowerCase()).executeTakeFirst();
      if (same && same.id !== exceptId) fail("AccountExists");
    }
    return fail("EmailExists");
  }

  return {
    /**
     * Creates an account. One an authentication way creates (`source` other than local) has no
     * password of its own: it is checked by that way, and its stored hash matches nothing.
     */
    async createUser(input: CreateUserBody, role: "user" | "admin" = "user", source: AuthSource = "local"): Promise<AdminUser> {
      if (source === "local") await checkNewPassword(input.password, input.account);
      // The licence's user limit, on every way an account is made (console, CLI, import, sign-in ways):
      // refused early here, and checked again atomically with the insert (limitedInsert).
      const limit = role === "user" && userLimit ? await userLimit() : null;
      if (limit !== null) await checkUserLimit(k, limit);
      const storageId = await homes.storageFor(input.storageId);
      input = { ...input, storageId, virtualDirectories: await virtualDirectories(input.virtualDirectories, input.home ?? `/users/${input.account}`, storageId) };
      // Without a permission, the security settings' default (List;Download unless an administrator changed it).
      const permission = input.permission ?? (await settings.get("security")).defaultPermission;
      const now = clock.now();
      const home = input.home ?? (await homes.freshHome(storageId, "/users", input.account));
      const id = await homes.unclaimOnFailure(storageId, input.home ? null : home, () =>
        unique(
          async () =>
            limitedInsert(limit, {
              account: input.account,
              account_key: input.account.toLowerCase(),
              password_hash: source === "local" ? await hashPassword(input.password) : NO_LOCAL_PASSWORD,
              auth_source: source,
              role,
              home,
              permission: normalizePermission(permission),
              need_update_pwd: input.needUpdatePwd === false ? 0 : 1,
              // Unless said otherwise, a user's mail goes through the server's account (docs/mail.md).
              email_sender_type: EMAIL_SENDER.server,
              created_at: now,
              updated_at: now,
              ...defined(userColumns({ ...input, home, permission: undefined, needUpdatePwd: undefined })),
            }),
          () => duplicateUser(input.account, input.email),
        ),
      );
      await homes.homeOrUndo(storageId, home, () => k.deleteFrom("users").where("id", "=", id).execute());
      return toAdminUser(await userRow(id));
    },

    async updateUser(id: number, patch: UpdateUserBody): Promise<AdminUser> {
      const before = await userRow(id);
      if (before.role === "admin" && patch.locked) fail("InvalidOperation");
      // A new home is checked against the virtual directories kept, as new ones are against the home kept.
      const kept = patch.home === undefined && patch.storageId === undefined ? undefined : parseVirtualDirectories(before.virtual_dirs);
      const storageId = patch.storageId === undefined ? before.storage_id : await homes.storageFor(patch.storageId);
      // Moved to another storage without a home named: a fresh home is claimed there, never a folder that is there already.
      const claimed = !patch.home && storageId !== before.storage_id ? await homes.freshHome(storageId, "/users", before.account) : null;
      const home = patch.home || claimed || before.home;
      const columns = defined(userColumns({ ...patch, ...(claimed ? { home: claimed } : {}), virtualDirectories: await virtualDirectories(patch.virtualDirectories ?? kept, home, storageId) }));
      await homes.unclaimOnFailure(storageId, claimed, () =>
        unique(
          () => k.updateTable("users").set({ ...columns, updated_at: clock.now() }).where("id", "=", id).execute(),
          () => duplicateUser(undefined, patch.email, id),
        ),
      );
      if (patch.home || patch.storageId !== undefined) await homes.ensureHome(storageId, home);
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

    /** The user's row; 4118 UserNotFound when there is none (groups check a new member with it). */
    userRow,

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

    async listUsers(page: { pageNum: number; pageSize: number; search?: string; orderBy?: UserOrderBy; order?: "asc" | "desc" }) {
      // Accounts of the system and HTTP ways have no list entry (admin document section 6).
      let query = k.selectFrom("users").where("auth_source", "not in", UNLISTED_SOURCES);
      if (page.search) query = query.where((eb) => eb.or([contains("account_key", page.search!), contains("email_key", page.search!)]));
      const { total } = await query.select((eb) => eb.fn.countAll<number>().as("total")).executeTakeFirstOrThrow();
      // Sorted in the database before the page is cut, so the next page goes on in the same order;
      // equal values by id in the same direction, so descending is exactly ascending reversed.
      // Case-insensitive on every database: the stored lower-case account, lower() of the name.
      const dir = page.orderBy ? (page.order ?? "asc") : "asc";
      let sorted = query.selectAll();
      if (page.orderBy === "account") sorted = sorted.orderBy("account_key", dir);
      else if (page.orderBy === "fullname") sorted = sorted.orderBy(sql`lower(${sql.ref("fullname")})`, dir);
      else if (page.orderBy === "createTime") sorted = sorted.orderBy("created_at", dir);
      const rows = await sorted
        .orderBy("id", dir)
        .limit(page.pageSize)
        .offset((page.pageNum - 1) * page.pageSize)
        .execute();
      const connections = await connectionsOf(db, clock, rows.map((r) => r.id));
      const list = await Promise.all(rows.map((r) => toAdminUser(r, { connections })));
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
  };
}

export type Users = ReturnType<typeof createUsers>;
