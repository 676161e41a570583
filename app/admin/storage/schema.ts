import * as z from "zod";
import { CLEAN_AGES, CLEAN_BY, MAX_SLICE_SIZE, MIN_SLICE_SIZE, STORAGE_PROVIDERS, type StorageBody } from "../../../contract/storage";

const MIB = 1024 * 1024;
export const SLICE_MIB_MIN = MIN_SLICE_SIZE / MIB;
export const SLICE_MIB_MAX = MAX_SLICE_SIZE / MIB;

const text = (max: number) => z.string().trim().max(max).optional().default("");

/**
 * The add / edit / test form of a storage, shared by the dialog (conform) and the action. Secrets
 * left empty keep the stored ones on edit; fields of other providers are sent but ignored by the engine.
 */
export const storageFormSchema = z.object({
  intent: z.enum(["save", "test"]),
  id: z.coerce.number().int().positive().optional(),
  name: z.string().trim().min(1).max(64),
  provider: z.enum(STORAGE_PROVIDERS),
  path: text(1024),
  endpoint: text(512),
  bucket: text(255),
  region: text(64),
  accessKeyId: text(256),
  secretAccessKey: text(256),
  sliceSizeMib: z.union([z.literal(""), z.coerce.number().int().min(SLICE_MIB_MIN).max(SLICE_MIB_MAX)]).optional(),
  virtualAddressing: z.literal("on").optional(),
  connectionString: text(2048),
  container: text(255),
  credentialsFile: text(1024),
  cleanBy: z.enum(CLEAN_BY).optional(),
  cleanAge: z.enum(CLEAN_AGES).optional(),
  recyclePath: text(1024),
});
export type StorageForm = z.output<typeof storageFormSchema>;

/** The engine's body of a form: empty secrets are left out (kept on edit). */
export function bodyOf(v: StorageForm, builtin: boolean): Partial<StorageBody> {
  const body: Partial<StorageBody> = {
    name: v.name,
    provider: v.provider,
    endpoint: v.endpoint,
    bucket: v.bucket,
    region: v.region,
    virtualAddressing: v.virtualAddressing === "on",
    container: v.container,
    credentialsFile: v.credentialsFile,
    ...(v.cleanBy ? { cleanBy: v.cleanBy } : {}),
    ...(v.cleanAge ? { cleanAge: v.cleanAge } : {}),
    recyclePath: v.recyclePath,
  };
  if (!builtin) body.path = v.path;
  if (typeof v.sliceSizeMib === "number") body.sliceSize = v.sliceSizeMib * MIB;
  if (v.accessKeyId) body.accessKeyId = v.accessKeyId;
  if (v.secretAccessKey) body.secretAccessKey = v.secretAccessKey;
  if (v.connectionString) body.connectionString = v.connectionString;
  return body;
}

/** Never echoed back in a failed save's reply (conform hideFields). */
export const SECRET_FIELDS = ["accessKeyId", "secretAccessKey", "connectionString"];

export const storageActionSchema = z.object({ intent: z.enum(["delete", "default"]), id: z.coerce.number().int().positive() });
