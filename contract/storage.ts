import * as z from "zod";
import { SEARCH_MAX } from "./admin";

/**
 * The administrator's storages (admin spec section 3, "Storage"; docs/storage.md "Storages";
 * docs/admin-api.md "Storages"). Credentials go in and are never answered: a storage says only
 * whether each one is set.
 */

export const STORAGE_PROVIDERS = ["local", "oss", "s3", "s3compatible", "azure", "gcs"] as const;
export type StorageProvider = (typeof STORAGE_PROVIDERS)[number];

/** The original product's type numbers (REFERENCE.md: 0 local, 1 Aliyun OSS, 2 S3, 3 other S3-compatible, 5 Azure, 7 GCS). */
export const STORAGE_TYPE_OF: Record<StorageProvider, number> = { local: 0, oss: 1, s3: 2, s3compatible: 3, azure: 5, gcs: 7 };

/** Providers spoken through the S3 API (Alibaba OSS, Amazon S3, S3-compatible stores, GCS in its S3-compatible mode). */
export const S3_PROVIDERS: readonly StorageProvider[] = ["oss", "s3", "s3compatible", "gcs"];
export const isS3Provider = (p: StorageProvider) => S3_PROVIDERS.includes(p);

/** Auto-clean of a local storage: by last accessed or last modified time, or off. */
export const CLEAN_BY = ["off", "accessed", "modified"] as const;
/** Age past which auto-clean takes a file: 7 days, 1 month, 3 months, half a year, 1 year. */
export const CLEAN_AGES = ["7d", "1m", "3m", "6m", "1y"] as const;

/** The names of the secret fields: taken on add and edit, never answered (an empty value on edit keeps the stored one). */
export const STORAGE_SECRETS = ["accessKeyId", "secretAccessKey", "connectionString"] as const;
export type StorageSecret = (typeof STORAGE_SECRETS)[number];

export const MIN_SLICE_SIZE = 5 * 1024 * 1024;
export const MAX_SLICE_SIZE = 5 * 1024 * 1024 * 1024;
export const DEFAULT_SLICE_SIZE = 8 * 1024 * 1024;

/** Storage names: 1–64 characters, none of \ / : " * ? < > | and no control characters (4150 otherwise). */
export function storageNameProblem(name: string): string | null {
  const n = name.trim();
  // eslint-disable-next-line no-control-regex -- control characters are refused in names
  if (n.length === 0 || n.length > 64 || /[\\/:"*?<>|\u0000-\u001f\u007f]/.test(n)) return "invalid";
  return null;
}

const text = (max: number) => z.string().max(max);

/** What an add, an edit or a connection test sends. Fields that do not belong to the provider are ignored. */
export const storageFields = {
  name: z.string().trim().min(1).max(64).describe("Unique, case-insensitive; 4150 when malformed, 4009 when taken."),
  provider: z.enum(STORAGE_PROVIDERS).describe("local, oss (Alibaba OSS), s3 (Amazon S3), s3compatible, azure (Azure Blob), gcs (Google Cloud Storage, S3-compatible mode with HMAC keys)."),
  path: text(1024)
    .optional()
    .describe("local: absolute folder on the server; oss/s3/s3compatible/gcs: folder inside the bucket (empty: the whole bucket); azure: blob path."),
  cleanBy: z.enum(CLEAN_BY).optional().describe("local: auto-clean by last accessed or last modified time, or off."),
  cleanAge: z.enum(CLEAN_AGES).optional().describe("local: auto-clean age: 7d, 1m, 3m, 6m, 1y."),
  recyclePath: text(1024).optional().describe("local: absolute folder auto-clean moves files to; empty: they are deleted."),
  endpoint: text(512).optional().describe("S3 family: service URL http(s)://host[:port]; empty: Amazon S3 of the region (GCS: https://storage.googleapis.com)."),
  bucket: text(255).optional(),
  region: text(64).optional(),
  virtualAddressing: z.boolean().optional().describe("S3 family: bucket.endpoint/key instead of endpoint/bucket/key."),
  sliceSize: z.number().int().optional().describe("S3 family: bytes per multipart part, 5 MiB to 5 GiB (4143 otherwise); default 8 MiB."),
  container: text(255).optional().describe("azure: blob container."),
  credentialsFile: text(1024).optional().describe("gcs: path of a service-account JSON file on the server (kept for a native driver; the S3-compatible mode signs with the HMAC keys)."),
  accessKeyId: text(256).optional().describe("Secret. Empty or absent on edit: the stored one is kept."),
  secretAccessKey: text(256).optional().describe("Secret. Empty or absent on edit: the stored one is kept."),
  connectionString: text(2048).optional().describe("azure, secret. Empty or absent on edit: the stored one is kept."),
};

export const storageBody = z.object(storageFields).strict();
export type StorageBody = z.infer<typeof storageBody>;
export const updateStorageBody = storageBody.partial().strict();
export type UpdateStorageBody = z.infer<typeof updateStorageBody>;

/** A connection test: an unsaved configuration, or (with `id`) a saved storage with the changes sent applied, its stored secrets filling the empty ones. */
export const storageTestBody = storageBody
  .partial()
  .extend({ id: z.number().int().positive().optional().describe("A saved storage whose stored secrets fill the fields left empty.") })
  .strict();
export type StorageTestBody = z.infer<typeof storageTestBody>;

export const adminStorage = z.object({
  id: z.number().int(),
  name: z.string(),
  provider: z.enum(STORAGE_PROVIDERS),
  type: z.number().int().describe("The original product's type number: 0 local, 1 OSS, 2 S3, 3 S3-compatible, 5 Azure, 7 GCS."),
  isDefault: z.boolean(),
  builtin: z.boolean().describe("The engine's own storage root (<data dir>/storage): its path is fixed."),
  path: z.string(),
  cleanBy: z.enum(CLEAN_BY),
  cleanAge: z.enum(CLEAN_AGES),
  recyclePath: z.string(),
  endpoint: z.string(),
  bucket: z.string(),
  region: z.string(),
  virtualAddressing: z.boolean(),
  sliceSize: z.number().int(),
  container: z.string(),
  credentialsFile: z.string(),
  accessKeyIdSet: z.boolean(),
  secretAccessKeySet: z.boolean(),
  connectionStringSet: z.boolean(),
  users: z.number().int().describe("Users whose home or a virtual directory is on this storage."),
  groups: z.number().int().describe("Groups whose home is on this storage."),
  createTime: z.number().int(),
  updateTime: z.number().int(),
});
export type AdminStorage = z.infer<typeof adminStorage>;

export const storageListQuery = z
  .object({
    pageNum: z.coerce.number().int().min(1).default(1),
    pageSize: z.coerce.number().int().min(1).max(100).default(10),
    search: z.string().max(SEARCH_MAX).optional().describe("Part of the name, case-insensitive."),
  })
  .strict();

export const storageTestResult = z.object({
  ok: z.literal(true),
  ms: z.number().int().describe("Milliseconds the probe's write, read back and delete took."),
});
export type StorageTestResult = z.infer<typeof storageTestResult>;

/** A storage as a choice in the user and group forms. */
export const storageChoice = z.object({ id: z.number().int(), name: z.string(), provider: z.enum(STORAGE_PROVIDERS), isDefault: z.boolean() });
export type StorageChoice = z.infer<typeof storageChoice>;
