import { randomUUID } from "node:crypto";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { type Selectable, sql } from "kysely";
import {
  type AdminStorage,
  CLEAN_AGES,
  CLEAN_BY,
  isS3Provider,
  STORAGE_TYPE_OF,
  type StorageBody,
  type StorageChoice,
  type StorageProvider,
  type StorageTestBody,
  type StorageTestResult,
  storageNameProblem,
  type UpdateStorageBody,
} from "../../../contract/storage";
import { contains, unique } from "../../accounts/shared";
import { type Clock, toSeconds } from "../../clock";
import { type Db, insertReturningId } from "../../db/connect";
import type { StoragesTable } from "../../db/schema";
import { FerryError, fail } from "../../errors";
import type { SecretBox } from "../../mail/secret";
import { parseVirtualDirectories } from "../../files/spaces";
import { checkRecyclePlace } from "../autoclean/cleaner";
import { checkEndpointHost } from "../endpoint-guard";
import { BUILTIN_STORAGE_ID, createDriver, type DriverOptions, localRootOf, placeOfSpec, s3ConfigOf, azureConfigOf, sealContext, type StorageRegistry, type StorageSpec, type StoredConfig, type StoredSecrets, storedObject } from "../registry";

/**
 * The administrator's storages (docs/admin-api.md "Storages", docs/storage.md "Storages"): list,
 * add, edit, delete, set default and test a connection. Credentials are sealed at rest (SecretBox
 * "storage", bound to the row) and never answered: a storage says only whether each one is set.
 */

type StorageRow = Selectable<StoragesTable>;

/** How long a connection test waits for a new connection to the store (the engine's own drivers wait 10 s). */
const TEST_CONNECT_TIMEOUT_MS = 5_000;

const PROBE_BYTES = Buffer.from("Ferry storage test: written, read back and deleted.\n");

export interface StorageAdminDeps {
  db: Db;
  clock: Clock;
  registry: StorageRegistry;
  box: () => SecretBox;
  driver: Omit<DriverOptions, "connectTimeoutMs">;
  /** The engine's data directory (its database, secrets, the built-in storage); by default the built-in root's parent (server/services.ts). */
  dataDir?: string;
}

/** The account (AccountName or BlobEndpoint) of an Azure connection string. */
const azureAccountOf = (connectionString: string | undefined) => (/(?:^|;)\s*(?:BlobEndpoint|AccountName)=([^;]+)/i.exec(connectionString ?? "")?.[1] ?? "").toLowerCase();

/** Whether folder `inner` is `outer` or lies inside it (both absolute, resolved). */
const within = (inner: string, outer: string) => inner === outer || inner.startsWith(outer.endsWith(path.sep) ? outer : outer + path.sep);

/** Only the fields of the provider, trimmed; absent ones left out. */
function configOf(provider: StorageProvider, body: Partial<StorageBody>): StoredConfig {
  const t = (v: string | undefined) => (v === undefined ? undefined : v.trim());
  if (provider === "local") return { path: t(body.path) };
  if (provider === "azure") return { path: t(body.path), container: t(body.container) };
  return {
    path: t(body.path),
    endpoint: t(body.endpoint),
    bucket: t(body.bucket),
    region: t(body.region),
    virtualAddressing: body.virtualAddressing,
    sliceSize: body.sliceSize,
    ...(provider === "gcs" ? { credentialsFile: t(body.credentialsFile) } : {}),
  };
}

/** Secrets sent with a value; an empty one keeps the stored value. */
function secretsOf(provider: StorageProvider, body: Partial<StorageBody>): StoredSecrets {
  const given = (v: string | undefined) => (v ? v : undefined);
  if (provider === "local") return {};
  if (provider === "azure") return { connectionString: given(body.connectionString) };
  return { accessKeyId: given(body.accessKeyId), secretAccessKey: given(body.secretAccessKey) };
}

const defined = <T extends object>(o: T) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;

/** The fields that say where a storage's files are: the default storage keeps them (4006). */
const PLACE_FIELDS: (keyof StoredConfig)[] = ["path", "endpoint", "bucket", "container"];

export function createStorageAdmin({ db, clock, registry, box, driver, dataDir = path.dirname(driver.builtinRoot) }: StorageAdminDeps) {
  const k = db.kysely;

  async function row(id: number): Promise<StorageRow> {
    return (await k.selectFrom("storages").selectAll().where("id", "=", id).executeTakeFirst()) ?? fail("StorageIdNotExist");
  }

  const secretsIn = (r: StorageRow): StoredSecrets => (r.sealed ? storedObject<StoredSecrets>(box().open(r.sealed, sealContext(r.id)) ?? "{}") : {});
  const specOf = (r: StorageRow): StorageSpec => ({ provider: r.provider as StorageProvider, config: storedObject<StoredConfig>(r.config), secrets: secretsIn(r) });

  /** Users (home or a virtual directory) and groups (home) on a storage. */
  async function usersAndGroups(id: number): Promise<{ users: number; groups: number }> {
    const homes = await k.selectFrom("users").select((eb) => eb.fn.countAll<number>().as("n")).where("storage_id", "=", id).executeTakeFirstOrThrow();
    const others = await k.selectFrom("users").select(["home", "storage_id", "virtual_dirs"]).where("storage_id", "!=", id).where("virtual_dirs", "!=", "[]").execute();
    const viaVirtual = others.filter((u) => parseVirtualDirectories(u.virtual_dirs).some((v) => v.storageId === id)).length;
    const groups = await k.selectFrom("user_groups").select((eb) => eb.fn.countAll<number>().as("n")).where("storage_id", "=", id).executeTakeFirstOrThrow();
    return { users: Number(homes.n) + viaVirtual, groups: Number(groups.n) };
  }

  /** Sync tasks whose source or target is on the storage (table sync_tasks, server/sync). */
  async function syncTasksOn(id: number): Promise<number> {
    const { rows } = await sql<{ n: number }>`select count(*) as n from sync_tasks where source_storage_id = ${id} or target_storage_id = ${id}`.execute(k);
    return Number(rows[0]?.n ?? 0);
  }

  /** Users, groups and sync tasks on a storage; StorageInUse (4620) with the counts when any. */
  async function refuseInUse(id: number) {
    const used = { ...(await usersAndGroups(id)), syncTasks: await syncTasksOn(id) };
    if (used.users > 0 || used.groups > 0 || used.syncTasks > 0) fail("StorageInUse", used);
  }

  /** A local folder's real path (links resolved as far as it exists). */
  const realOf = async (folder: string) => (await placeOfSpec({ provider: "local", config: { path: folder }, secrets: {} }, "/", driver.builtinRoot)).path;

  /**
   * Local storages never overlap (PathFormatError): a folder that holds or lies inside the built-in
   * root, the data directory or another local storage's folder is refused, compared by real paths.
   */
  async function checkLocalApart(spec: StorageSpec, self: number | null) {
    if (spec.provider !== "local" || !spec.config.path) return;
    const mine = await realOf(localRootOf(spec, driver.builtinRoot));
    const others = [driver.builtinRoot, dataDir];
    const rows = await k.selectFrom("storages").select(["id", "config"]).where("provider", "=", "local").execute();
    for (const r of rows) {
      if (r.id === self) continue;
      others.push(localRootOf({ config: storedObject<StoredConfig>(r.config) }, driver.builtinRoot));
    }
    for (const other of others) {
      const real = await realOf(other);
      if (within(mine, real) || within(real, mine)) fail("PathFormatError");
    }
  }

  async function toAdmin(r: StorageRow): Promise<AdminStorage> {
    const provider = r.provider as StorageProvider;
    const config = storedObject<StoredConfig>(r.config);
    const secrets = secretsIn(r);
    const builtin = r.id === BUILTIN_STORAGE_ID && provider === "local" && !config.path;
    return {
      id: r.id,
      name: r.name,
      provider,
      type: STORAGE_TYPE_OF[provider] ?? -1,
      isDefault: r.is_default === 1,
      builtin,
      path: builtin ? registry.builtinRoot : (config.path ?? ""),
      cleanBy: (CLEAN_BY as readonly string[]).includes(r.clean_by) ? (r.clean_by as AdminStorage["cleanBy"]) : "off",
      cleanAge: (CLEAN_AGES as readonly string[]).includes(r.clean_age) ? (r.clean_age as AdminStorage["cleanAge"]) : "1m",
      recyclePath: r.recycle_path,
      endpoint: config.endpoint ?? "",
      bucket: config.bucket ?? "",
      region: config.region ?? "",
      virtualAddressing: config.virtualAddressing ?? false,
      sliceSize: config.sliceSize ?? 0,
      container: config.container ?? "",
      credentialsFile: config.credentialsFile ?? "",
      accessKeyIdSet: Boolean(secrets.accessKeyId),
      secretAccessKeySet: Boolean(secrets.secretAccessKey),
      connectionStringSet: Boolean(secrets.connectionString),
      ...(await usersAndGroups(r.id)),
      createTime: toSeconds(r.created_at),
      updateTime: toSeconds(r.updated_at),
    };
  }

  /**
   * Refuses a configuration that cannot work, before anything is stored or tried: a local path
   * that is not absolute (PathFormatError), the S3 family's and Azure's own checks (StorageConfigFailed,
   * InvalidSliceSize, PathFormatError), an unknown provider (StorageTypeNotFound).
   */
  async function check(spec: StorageSpec, builtin: boolean): Promise<void> {
    if (spec.provider === "local") {
      if (!builtin && (!spec.config.path || !path.isAbsolute(spec.config.path))) fail("PathFormatError");
      return;
    }
    if (isS3Provider(spec.provider)) {
      const { checkS3Config } = await import("../s3");
      checkEndpointHost(spec.config.endpoint);
      checkS3Config(s3ConfigOf(spec));
      return;
    }
    if (spec.provider === "azure") {
      const { checkAzureConfig } = await import("../azure");
      const blobEndpoint = /(?:^|;)\s*BlobEndpoint=([^;]+)/i.exec(spec.secrets.connectionString ?? "")?.[1];
      checkEndpointHost(blobEndpoint);
      checkAzureConfig(azureConfigOf(spec));
      return;
    }
    fail("StorageTypeNotFound");
  }

  /**
   * A recycle path is absolute; on a local storage it is also checked against the storage's folder
   * by real paths, as every run checks it (checkRecyclePlace): not the folder, not holding it, and
   * inside it only when it really is.
   */
  async function checkCleaning(spec: StorageSpec, recyclePath: string | undefined) {
    const recycle = recyclePath?.trim();
    if (!recycle) return;
    if (spec.provider !== "local") {
      if (!path.isAbsolute(recycle)) fail("PathFormatError");
      return;
    }
    await checkRecyclePlace(localRootOf(spec, registry.builtinRoot), recycle);
  }

  function checkName(name: string): string {
    if (storageNameProblem(name) !== null) fail("StorageNameInvalid");
    return name.trim();
  }

  /** A local storage's folder is made when it is added or moved, so homes can be claimed in it at once. */
  async function makeLocalFolder(spec: StorageSpec) {
    if (spec.provider !== "local" || !spec.config.path) return;
    try {
      await mkdir(spec.config.path, { recursive: true, mode: 0o750 });
    } catch (error) {
      const failure = new FerryError("StorageConfigFailed");
      failure.cause = error;
      throw failure;
    }
  }

  const seal = (id: number, secrets: StoredSecrets) => {
    const present = defined(secrets);
    return Object.keys(present).length === 0 ? "" : box().seal(JSON.stringify(present), sealContext(id));
  };

  /** Writes a probe object, reads it back and deletes it, on the storage's root. */
  async function probe(spec: StorageSpec): Promise<StorageTestResult> {
    const started = performance.now();
    const storage = await createDriver(spec, "/", { ...driver, connectTimeoutMs: TEST_CONNECT_TIMEOUT_MS });
    const name = `/.ferry-probe-${randomUUID()}`;
    try {
      await storage.stat("/");
    } catch (error) {
      // A local folder or a bucket prefix that is not there yet is fine (the first home makes it); a missing bucket is not.
      if (!(error instanceof FerryError && error.errorName === "PathNotFound")) throw error;
      if (spec.provider === "local") fail("StoragePathLost");
    }
    const writer = await storage.beginWrite(name);
    try {
      await writer.write(PROBE_BYTES);
      await writer.commit();
    } catch (error) {
      await writer.abort().catch(() => undefined);
      throw error;
    }
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of await storage.createReadStream(name)) chunks.push(chunk as Buffer);
      if (!Buffer.concat(chunks).equals(PROBE_BYTES)) fail("StorageConnectionFailed");
    } finally {
      await storage.remove(name).catch(() => undefined);
    }
    // The delete must have worked too: a store that keeps the probe cannot hold Ferry's files.
    const left = await storage.stat(name).then(
      () => true,
      () => false,
    );
    if (left) fail("StorageConnectionFailed");
    return { ok: true, ms: Math.round(performance.now() - started) };
  }

  return {
    async list(page: { pageNum: number; pageSize: number; search?: string }) {
      let query = k.selectFrom("storages");
      if (page.search) query = query.where(contains("name_key", page.search));
      const { total } = await query.select((eb) => eb.fn.countAll<number>().as("total")).executeTakeFirstOrThrow();
      const rows = await query.selectAll().orderBy("id").limit(page.pageSize).offset((page.pageNum - 1) * page.pageSize).execute();
      return { list: await Promise.all(rows.map(toAdmin)), total: Number(total), size: page.pageSize, current: page.pageNum };
    },

    /** Every storage as a choice of the user and group forms. */
    async choices(): Promise<StorageChoice[]> {
      const rows = await k.selectFrom("storages").select(["id", "name", "provider", "is_default"]).orderBy("id").execute();
      return rows.map((r) => ({ id: r.id, name: r.name, provider: r.provider as StorageProvider, isDefault: r.is_default === 1 }));
    },

    async get(id: number): Promise<AdminStorage> {
      return toAdmin(await row(id));
    },

    async add(body: StorageBody): Promise<AdminStorage> {
      const name = checkName(body.name);
      const spec: StorageSpec = { provider: body.provider, config: defined(configOf(body.provider, body)), secrets: secretsOf(body.provider, body) };
      await check(spec, false);
      await checkCleaning(spec, body.recyclePath);
      await checkLocalApart(spec, null);
      await makeLocalFolder(spec);
      const now = clock.now();
      const id = await unique(
        () =>
          insertReturningId(db, "storages", {
            name,
            name_key: name.toLowerCase(),
            provider: body.provider,
            config: JSON.stringify(spec.config),
            clean_by: body.cleanBy,
            clean_age: body.cleanAge,
            recycle_path: body.recyclePath?.trim(),
            created_at: now,
            updated_at: now,
          }),
        () => fail("StorageNameExists"),
      );
      // Sealed once the row has its id: the seal is bound to the row.
      await k.updateTable("storages").set({ sealed: seal(id, spec.secrets) }).where("id", "=", id).execute();
      registry.invalidate(id);
      return toAdmin(await row(id));
    },

    async update(id: number, patch: UpdateStorageBody): Promise<AdminStorage> {
      const before = await row(id);
      const old = specOf(before);
      const builtin = id === BUILTIN_STORAGE_ID && old.provider === "local" && !old.config.path;
      const provider = patch.provider ?? old.provider;
      const changedProvider = provider !== old.provider;
      // The built-in storage (id 1) stays a local storage at the engine's storage root.
      if (id === BUILTIN_STORAGE_ID && changedProvider) fail(before.is_default === 1 ? "DefaultStorageUnmodifiable" : "InvalidOperation");
      const sent = defined(configOf(provider, patch));
      if (builtin && sent.path !== undefined && sent.path !== "" && path.resolve(sent.path) !== registry.builtinRoot) {
        fail(before.is_default === 1 ? "DefaultStorageUnmodifiable" : "InvalidOperation");
      }
      if (builtin) delete sent.path;
      const config: StoredConfig = changedProvider ? sent : { ...old.config, ...sent };
      // The default storage holds the homes made without a choice: where it is (provider, folder, endpoint, bucket, container) stays (4006).
      if (before.is_default === 1 && (changedProvider || PLACE_FIELDS.some((f) => (config[f] ?? "") !== (old.config[f] ?? "")))) fail("DefaultStorageUnmodifiable");
      const secrets: StoredSecrets = { ...(changedProvider ? {} : old.secrets), ...defined(secretsOf(provider, patch)) };
      // Where the files are (provider, folder, endpoint, bucket, container, Azure account) stays while
      // users, groups, virtual directories or sync tasks use the storage (4620).
      const norm = (f: keyof StoredConfig, c: StoredConfig) => {
        const v = String(c[f] ?? "");
        return f === "path" && provider === "local" && v ? path.resolve(v) : v;
      };
      const moved =
        changedProvider ||
        PLACE_FIELDS.some((f) => norm(f, config) !== norm(f, old.config)) ||
        (provider === "azure" && azureAccountOf(secrets.connectionString) !== azureAccountOf(old.secrets.connectionString));
      if (moved) await refuseInUse(id);
      const spec: StorageSpec = { provider, config, secrets };
      await check(spec, builtin);
      // The saved recycle path too when only the folder moved: both are checked together.
      await checkCleaning(spec, patch.recyclePath ?? before.recycle_path);
      if (!builtin && (changedProvider || norm("path", config) !== norm("path", old.config))) await checkLocalApart(spec, id);
      const name = patch.name === undefined ? undefined : checkName(patch.name);
      if (!builtin && config.path !== old.config.path) await makeLocalFolder(spec);
      await unique(
        () =>
          k
            .updateTable("storages")
            .set(
              defined({
                name,
                name_key: name?.toLowerCase(),
                provider,
                config: JSON.stringify(config),
                sealed: seal(id, secrets),
                clean_by: patch.cleanBy,
                clean_age: patch.cleanAge,
                recycle_path: patch.recyclePath?.trim(),
                updated_at: clock.now(),
              }),
            )
            .where("id", "=", id)
            .execute(),
        () => fail("StorageNameExists"),
      );
      registry.invalidate(id);
      return toAdmin(await row(id));
    },

    async remove(id: number): Promise<void> {
      const r = await row(id);
      if (r.is_default === 1) fail("DefaultStorageUndeletable");
      // The built-in storage holds the engine's own storage root: never deleted.
      if (id === BUILTIN_STORAGE_ID) fail("InvalidOperation");
      await refuseInUse(id);
      await k.deleteFrom("storages").where("id", "=", id).execute();
      registry.invalidate(id);
    },

    /** Makes a storage the default one: new users and groups created without a choice get their homes there. */
    async setDefault(id: number): Promise<AdminStorage> {
      const r = await row(id);
      await specCheck(r);
      const before = await k.selectFrom("storages").select("id").where("is_default", "=", 1).execute();
      await db.kysely.transaction().execute(async (trx) => {
        await trx.updateTable("storages").set({ is_default: 0, updated_at: clock.now() }).where("is_default", "=", 1).where("id", "!=", id).execute();
        await trx.updateTable("storages").set({ is_default: 1, updated_at: clock.now() }).where("id", "=", id).execute();
      });
      // Only the storages whose default flag changed: the others' drivers stay.
      for (const affected of new Set([id, ...before.map((b) => b.id)])) registry.invalidate(affected);
      return toAdmin(await row(id));
    },

    /**
     * A connection test: writes a probe object, reads it back and deletes it. An unsaved configuration
     * is tested as sent; with `id` the saved storage is, with the fields sent applied and its stored
     * secrets filling those left empty. StorageConnectionFailed (wrong key, unreachable, refused),
     * StoragePathLost (no such bucket, container or folder), the configuration checks' codes.
     */
    async test(body: StorageTestBody): Promise<StorageTestResult> {
      let spec: StorageSpec;
      let builtin = false;
      if (body.id !== undefined) {
        const saved = specOf(await row(body.id));
        builtin = body.id === BUILTIN_STORAGE_ID && saved.provider === "local" && !saved.config.path;
        const provider = body.provider ?? saved.provider;
        const same = provider === saved.provider;
        const sent = defined(configOf(provider, body));
        if (builtin) delete sent.path;
        // The stored secrets go only where they were meant for: another endpoint or account gets none (they must be typed again).
        const sameEndpoint = sent.endpoint === undefined || sent.endpoint === (saved.config.endpoint ?? "");
        const sentSecrets = defined(secretsOf(provider, body));
        const sameAccount = sentSecrets.connectionString === undefined || azureAccountOf(sentSecrets.connectionString) === azureAccountOf(saved.secrets.connectionString);
        const fill = same && sameEndpoint && sameAccount;
        spec = { provider, config: same ? { ...saved.config, ...sent } : sent, secrets: { ...(fill ? saved.secrets : {}), ...sentSecrets } };
      } else {
        const provider = body.provider ?? fail("StorageTypeNotFound");
        spec = { provider, config: defined(configOf(provider, body)), secrets: secretsOf(provider, body) };
      }
      await check(spec, builtin);
      return probe(spec);
    },
  };

  /** A storage about to become the default must be one Ferry can drive. */
  async function specCheck(r: StorageRow) {
    const spec = specOf(r);
    await check(spec, r.id === BUILTIN_STORAGE_ID && spec.provider === "local" && !spec.config.path);
  }
}

export type StorageAdmin = ReturnType<typeof createStorageAdmin>;
