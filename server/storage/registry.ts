import { realpath } from "node:fs/promises";
import path from "node:path";
import { isS3Provider, type StorageProvider } from "../../contract/storage";
import type { Db } from "../db/connect";
import { FerryError } from "../errors";
import type { SecretBox } from "../mail/secret";
import { createLocalStorage } from "./local";
import { BUILTIN_STORAGE_ID, parseLocation } from "./locations";
import { normaliseUserPath, resolveUserPath } from "./paths";
import type { AzureStorageConfig } from "./azure";
import type { Resolver } from "./endpoint-guard";
import type { S3Log, S3StorageConfig } from "./s3";
import type { Storage } from "./storage";
import { WALK_DEFAULTS, type WalkLimits } from "./walk";

/**
 * The administrator's storages (table `storages`, docs/storage.md "Storages") as drivers: a home,
 * a group home or a virtual directory's target is a folder on one storage, and `at(id, folder)`
 * answers the Storage rooted there — a local directory below the storage's path (the built-in one:
 * the engine's storage root), or a prefix in a bucket (the storage's `path` plus the folder).
 * Drivers are cached per (storage, folder), so one home has one instance (its staging bookkeeping,
 * its S3 socket pool); an edit of a storage drops its drivers (invalidate).
 */

export { BUILTIN_STORAGE_ID, locationOf, locationsRelated, locationUnder, parseLocation } from "./locations";

/** The non-secret fields kept in `storages.config`. */
export interface StoredConfig {
  path?: string;
  endpoint?: string;
  bucket?: string;
  region?: string;
  virtualAddressing?: boolean;
  sliceSize?: number;
  container?: string;
  credentialsFile?: string;
}

/** The credentials, kept sealed in `storages.sealed`. */
export interface StoredSecrets {
  accessKeyId?: string;
  secretAccessKey?: string;
  connectionString?: string;
}

/** A storage as the drivers need it. */
export interface StorageSpec {
  provider: StorageProvider;
  config: StoredConfig;
  secrets: StoredSecrets;
}

export interface StorageRecord extends StorageSpec {
  id: number;
  name: string;
  isDefault: boolean;
}

/** The SecretBox context of a row's credentials: bound to the row, so a sealed value copied to another row does not open. */
export const sealContext = (id: number) => `storage:${id}`;

/** Google Cloud Storage's S3-compatible (XML API) endpoint. */
export const GCS_ENDPOINT = "https://storage.googleapis.com";

/** Parses a JSON object kept in a text column; {} when it is none. */
export function storedObject<T extends object>(json: string): T {
  try {
    const value: unknown = JSON.parse(json);
    return (value && typeof value === "object" && !Array.isArray(value) ? value : {}) as T;
  } catch {
    return {} as T;
  }
}

/** `folder` below a storage's configured path (PathFormatError when that path is malformed). */
function joinFolder(configPath: string, folder: string): string {
  let base: string;
  try {
    base = normaliseUserPath(configPath);
  } catch {
    throw new FerryError("PathFormatError");
  }
  const inner = normaliseUserPath(folder);
  return inner === "/" ? base : base === "/" ? inner : `${base}${inner}`;
}

/** The S3 driver's configuration of a storage, rooted at `folder` below its path. */
export function s3ConfigOf(spec: StorageSpec, folder = "/"): S3StorageConfig {
  const { config, secrets } = spec;
  const gcs = spec.provider === "gcs";
  return {
    endpoint: config.endpoint || (gcs ? GCS_ENDPOINT : undefined),
    accessKeyId: secrets.accessKeyId ?? "",
    secretAccessKey: secrets.secretAccessKey ?? "",
    bucket: config.bucket ?? "",
    region: config.region || (gcs ? "auto" : undefined),
    path: joinFolder(config.path ?? "", folder),
    virtualAddressing: config.virtualAddressing,
    sliceSize: config.sliceSize,
  };
}

export interface DriverOptions {
  /** The engine's storage root: the built-in storage's place (a local storage with an empty path). */
  builtinRoot: string;
  walk?: WalkLimits;
  log?: S3Log;
  /** Connect timeout of S3 drivers (tests of an unreachable endpoint shorten it). */
  connectTimeoutMs?: number;
  /** How S3 and Azure drivers resolve their endpoint before each connection (endpoint-guard.ts); default: dns.lookup. */
  resolve?: Resolver;
}

/** The absolute folder of a local storage. */
export function localRootOf(spec: Pick<StorageSpec, "config">, builtinRoot: string): string {
  return spec.config.path ? path.resolve(spec.config.path) : builtinRoot;
}

/** The Azure driver's configuration of a storage, rooted at `folder` below its blob path. */
export function azureConfigOf(spec: StorageSpec, folder = "/"): AzureStorageConfig {
  return { connectionString: spec.secrets.connectionString ?? "", container: spec.config.container ?? "", path: joinFolder(spec.config.path ?? "", folder) };
}

/** A driver for `folder` of a storage (local, the S3 family, Azure Blob); StorageTypeNotFound for any other provider. */
export async function createDriver(spec: StorageSpec, folder: string, options: DriverOptions): Promise<Storage> {
  if (spec.provider === "local") {
    return createLocalStorage(resolveUserPath(localRootOf(spec, options.builtinRoot), folder).absolute, { walk: options.walk ?? WALK_DEFAULTS });
  }
  if (isS3Provider(spec.provider)) {
    // Loaded on first use: the operator CLI and engines without object storage never load the AWS SDK.
    const { createS3Storage } = await import("./s3");
    return createS3Storage(s3ConfigOf(spec, folder), { walk: options.walk ?? WALK_DEFAULTS, log: options.log, connectTimeoutMs: options.connectTimeoutMs, resolve: options.resolve });
  }
  if (spec.provider === "azure") {
    const { createAzureStorage } = await import("./azure");
    return createAzureStorage(azureConfigOf(spec, folder), { walk: options.walk ?? WALK_DEFAULTS, log: options.log, resolve: options.resolve });
  }
  throw new FerryError("StorageTypeNotFound");
}

/**
 * Where a folder of a storage really is, so two storages that reach one place compare equal: a
 * local folder as its real path (links resolved as far as the folder exists), an object store's
 * as endpoint + bucket or container + the storage's path + the folder. Two places overlap when
 * their `scope`s are equal and one `path` holds the other.
 */
export interface Place {
  scope: string;
  path: string;
}

export async function placeOfSpec(spec: StorageSpec, folder: string, builtinRoot: string): Promise<Place> {
  if (spec.provider === "local") {
    let absolute = resolveUserPath(localRootOf(spec, builtinRoot), folder).absolute;
    const rest: string[] = [];
    for (;;) {
      try {
        return { scope: "local", path: path.join(await realpath(absolute), ...rest) };
      } catch {
        const parent = path.dirname(absolute);
        if (parent === absolute) return { scope: "local", path: path.join(absolute, ...rest) };
        rest.unshift(path.basename(absolute));
        absolute = parent;
      }
    }
  }
  if (spec.provider === "azure") {
    const account = /(?:^|;)\s*(?:BlobEndpoint|AccountName)=([^;]+)/i.exec(spec.secrets.connectionString ?? "")?.[1] ?? "";
    return { scope: `azure:${account.toLowerCase()}/${spec.config.container ?? ""}`, path: azureConfigOf(spec, folder).path ?? "/" };
  }
  const s3 = s3ConfigOf(spec, folder);
  return { scope: `s3:${(s3.endpoint ?? `aws:${s3.region ?? ""}`).toLowerCase().replace(/\/+$/, "")}/${s3.bucket}`, path: s3.path ?? "/" };
}

export interface StorageRegistry {
  readonly builtinRoot: string;
  /** The storage's record; StorageIdNotExist when there is none. */
  get(id: number): Promise<StorageRecord>;
  /** The id of the default storage (new homes go there unless the administrator chose another). */
  defaultId(): Promise<number>;
  /** The Storage rooted at `folder` ("/users/alice") of storage `id`; cached. */
  at(id: number, folder: string): Promise<Storage>;
  /** The same for a location (locationOf). */
  atLocation(location: string): Promise<Storage>;
  /** Where `folder` of storage `id` really is (placeOfSpec). */
  placeOf(id: number, folder: string): Promise<Place>;
  /** Drops the cached record and drivers of a storage (after an edit or a delete); all with no id. */
  invalidate(id?: number): void;
}

export function createStorageRegistry(db: Db, box: () => SecretBox, options: DriverOptions): StorageRegistry {
  const records = new Map<number, Promise<StorageRecord>>();
  // The promise of each driver is cached as soon as its creation starts, so concurrent callers share
  // one driver; an invalidate drops it, and a creation that began before that never stores its
  // (stale) driver: entries are replaced or removed only while the storage's generation is unchanged.
  const drivers = new Map<string, Promise<Storage>>();
  const generations = new Map<number, number>();
  const generationOf = (id: number) => generations.get(id) ?? 0;

  async function load(id: number): Promise<StorageRecord> {
    const row = await db.kysely.selectFrom("storages").selectAll().where("id", "=", id).executeTakeFirst();
    if (!row) throw new FerryError("StorageIdNotExist");
    const secrets = row.sealed ? storedObject<StoredSecrets>(box().open(row.sealed, sealContext(row.id)) ?? "{}") : {};
    return { id: row.id, name: row.name, provider: row.provider as StorageProvider, config: storedObject<StoredConfig>(row.config), secrets, isDefault: row.is_default === 1 };
  }

  function get(id: number): Promise<StorageRecord> {
    let record = records.get(id);
    if (!record) {
      const made = load(id);
      record = made;
      records.set(id, made);
      made.catch(() => {
        if (records.get(id) === made) records.delete(id);
      });
    }
    return record;
  }

  async function at(id: number, folder: string): Promise<Storage> {
    const key = `${id}:${folder}`;
    const known = drivers.get(key);
    if (known) return known;
    const generation = generationOf(id);
    const made = get(id).then((record) => createDriver(record, folder, options));
    drivers.set(key, made);
    made.then(
      () => {
        // Invalidated while it was made: the caller gets it, the cache does not keep it.
        if (generationOf(id) !== generation && drivers.get(key) === made) drivers.delete(key);
      },
      () => {
        if (drivers.get(key) === made) drivers.delete(key);
      },
    );
    return made;
  }

  return {
    builtinRoot: options.builtinRoot,
    get,
    async defaultId() {
      const row = await db.kysely.selectFrom("storages").select("id").where("is_default", "=", 1).orderBy("id").executeTakeFirst();
      return row?.id ?? BUILTIN_STORAGE_ID;
    },
    at,
    async placeOf(id, folder) {
      return placeOfSpec(await get(id), folder, options.builtinRoot);
    },
    atLocation(location) {
      const { storageId, folder } = parseLocation(location);
      return at(storageId, folder);
    },
    invalidate(id) {
      if (id === undefined) {
        for (const known of new Set([...records.keys(), ...generations.keys()])) generations.set(known, generationOf(known) + 1);
        for (const key of drivers.keys()) {
          const known = Number(key.slice(0, key.indexOf(":")));
          generations.set(known, generationOf(known) + 1);
        }
        records.clear();
        drivers.clear();
        return;
      }
      generations.set(id, generationOf(id) + 1);
      records.delete(id);
      for (const key of [...drivers.keys()]) if (key.startsWith(`${id}:`)) drivers.delete(key);
    },
  };
}
