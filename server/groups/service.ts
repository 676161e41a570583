import { sql } from "kysely";
import type { AdminGroup, CreateGroupBody, GROUP_ORDER_BY, UpdateGroupBody } from "../../contract/admin";

type GroupOrderBy = (typeof GROUP_ORDER_BY)[number];
import { normalizePermission } from "../../contract/permissions";
import { isValidFileName } from "../../contract/validation";
import { type AccountHomes, bool, contains, defined, flag, type GroupRow, switchColumns, switchesOf, unique } from "../accounts/shared";
import { type Clock, toSeconds } from "../clock";
import { type Db, insertReturningId } from "../db/connect";
import { fail } from "../errors";
import { createSettings } from "../settings/service";
import type { Users } from "../users/service";

function groupColumns(input: UpdateGroupBody) {
  return {
    ...(input.name !== undefined ? { name: input.name, name_key: input.name.toLowerCase() } : {}),
    home: input.home,
    storage_id: input.storageId,
    max_upload_speed: input.maxUploadSpeed,
    max_download_speed: input.maxDownloadSpeed,
    upload_new_only: flag(input.uploadNewOnly),
    quota: input.quota,
    ...switchColumns(input),
  };
}

export interface GroupsDeps {
  db: Db;
  clock: Clock;
  homes: AccountHomes;
  /** Members are users: adding one checks that it exists. */
  users: Pick<Users, "userRow">;
}

/** Groups and their members: the logic behind the admin API and the operator CLI. */
export function createGroups({ db, clock, homes, users }: GroupsDeps) {
  const k = db.kysely;

  async function groupRow(id: number): Promise<GroupRow> {
    return (await k.selectFrom("user_groups").selectAll().where("id", "=", id).executeTakeFirst()) ?? fail("GroupNotFound");
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
      storageId: row.storage_id,
      maxUploadSpeed: row.max_upload_speed,
      maxDownloadSpeed: row.max_download_speed,
      uploadNewOnly: bool(row.upload_new_only),
      quota: Number(row.quota),
      ...switchesOf(row),
      // The General settings' group space statistics: off, the console asks for no walk of the space.
      space: (await createSettings(db).get("general")).groupSpaceStatistics ? await homes.spaceOf(row.storage_id, row.home) : null,
    };
  }

  return {
    async createGroup(input: CreateGroupBody): Promise<AdminGroup> {
      if (!isValidFileName(input.name)) fail("NameFormat");
      const storageId = await homes.storageFor(input.storageId);
      const home = input.home ?? (await homes.freshHome(storageId, "/groups", input.name));
      const id = await homes.unclaimOnFailure(storageId, input.home ? null : home, () =>
        unique(
          () => insertReturningId(db, "user_groups", { created_at: clock.now(), ...defined(groupColumns({ ...input, home, storageId })) } as never),
          () => fail("GroupNameDuplicate"),
        ),
      );
      await homes.homeOrUndo(storageId, home, () => k.deleteFrom("user_groups").where("id", "=", id).execute());
      return toAdminGroup(await groupRow(id));
    },

    async updateGroup(id: number, patch: UpdateGroupBody): Promise<AdminGroup> {
      const before = await groupRow(id);
      if (patch.storageId !== undefined) await homes.storageFor(patch.storageId);
      if (patch.name !== undefined && !isValidFileName(patch.name)) fail("NameFormat");
      const storageId = patch.storageId ?? before.storage_id;
      // Moved to another storage without a home named: a fresh home is claimed there, never a folder that is there already.
      const claimed = !patch.home && storageId !== before.storage_id ? await homes.freshHome(storageId, "/groups", patch.name ?? before.name) : null;
      const columns = defined(groupColumns({ ...patch, ...(claimed ? { home: claimed } : {}) }));
      if (Object.keys(columns).length > 0) {
        await homes.unclaimOnFailure(storageId, claimed, () => unique(() => k.updateTable("user_groups").set(columns).where("id", "=", id).execute(), () => fail("GroupNameDuplicate")));
      }
      if (patch.home || patch.storageId !== undefined) await homes.ensureHome(storageId, patch.home || claimed || before.home);
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

    async listGroups(page: { pageNum: number; pageSize: number; search?: string; orderBy?: GroupOrderBy; order?: "asc" | "desc" }) {
      let query = k.selectFrom("user_groups");
      if (page.search) query = query.where(contains("name_key", page.search));
      const { total } = await query.select((eb) => eb.fn.countAll<number>().as("total")).executeTakeFirstOrThrow();
      // Sorted in the database before the page is cut; equal values by id in the same direction.
      const dir = page.orderBy ? (page.order ?? "asc") : "asc";
      let sorted = query.selectAll();
      if (page.orderBy === "name") sorted = sorted.orderBy("name_key", dir);
      else if (page.orderBy === "createTime") sorted = sorted.orderBy("created_at", dir);
      else if (page.orderBy === "members")
        sorted = sorted.orderBy(sql`(select count(*) from ${sql.table("group_members")} where ${sql.ref("group_members.group_id")} = ${sql.ref("user_groups.id")})`, dir);
      const rows = await sorted.orderBy("id", dir).limit(page.pageSize).offset((page.pageNum - 1) * page.pageSize).execute();
      return { list: await Promise.all(rows.map(toAdminGroup)), total: Number(total), size: page.pageSize, current: page.pageNum };
    },

    /** Adds a member or changes its permission; takes effect on the member's next call. */
    async setMember(groupId: number, userId: number, groupPermission: number): Promise<AdminGroup> {
      const group = await groupRow(groupId);
      await users.userRow(userId);
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
}

export type Groups = ReturnType<typeof createGroups>;
