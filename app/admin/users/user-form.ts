import * as z from "zod";
import { createUserBody, homePath, virtualAlias, virtualDirectory, type AdminUser, type CreateUserBody, type UpdateUserBody } from "../../../contract/admin";
import { normalizePermission, Permission, type PermissionName } from "../../../contract/permissions";
import { ErrorCode } from "../../../contract/errors";

/**
 * The add / edit user form's values (admin spec section 2, 4 steps; section 3, User), as a browser
 * posts them, checked with the contract's own rules, and turned into the engine's
 * createUserBody / updateUserBody. Sizes the admin types in MB are bytes for the engine.
 */

const MB = 1024 * 1024;
/** Every used permission bit, in the spec's order (section 3), as checkbox values. */
export const PERMISSION_NAMES = (["List", "Download", "Upload", "Delete", "Rename", "Mkdir", "Move", "Copy", "Share", "Invite", "HotFolder"] as const satisfies readonly PermissionName[]);
const shape = createUserBody.shape;
const count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER / MB);
const toggle = z.boolean().optional();
/** The contract's rule of a home or storage path ("/alice"), with a translated message. */
const isPath = (text: string) => homePath.safeParse(text).success;

const general = {
  fullname: shape.fullname,
  account: z.string().regex(/^[A-Za-z0-9_]{3,30}$/, "admin.users.error.account"),
  email: z.string().max(255).regex(/^[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}$/, "admin.users.error.email").optional(),
  password: shape.password,
  needUpdatePwd: toggle,
  accountType: z.enum(["2", "4", "5", "6"]).optional(),
};
/** A storage's id as the form posts it (GET /api/admin/storages/choices); empty: the default storage, or the home's for a virtual directory. */
const storageChoice = z.union([z.literal(""), z.string().regex(/^\d{1,12}$/)]).optional();

const storage = {
  storageId: storageChoice,
  home: z.string().refine(isPath, "admin.users.error.path").optional(),
  // Rows left blank (the form always offers one more) are not directories.
  virtualDirectories: z.preprocess(
    (rows) => (Array.isArray(rows) ? rows.filter((row: { alias?: unknown; path?: unknown } | undefined) => row && (row.alias || row.path)) : rows),
    z
    .array(
      z.object({
        alias: virtualDirectory.shape.alias.refine((a) => virtualAlias(a) !== null, "admin.users.error.alias"),
        path: z.string().refine(isPath, "admin.users.error.path"),
        storageId: storageChoice,
      }),
    )
    .max(10)
    .optional(),
  ),
  forbiddenPaths: z
    .string()
    .max(100 * 1025)
    .optional()
    .refine((text) => lines(text).every(isPath), "admin.users.error.path")
    .refine((text) => lines(text).length <= 100),
  quota: count.optional(),
};
const transfer = {
  permission: z.array(z.enum(PERMISSION_NAMES)).max(PERMISSION_NAMES.length).optional(),
  uploadNewOnly: toggle,
  maxUploadSpeed: z.number().int().min(0).max(10_000_000).optional(),
  maxDownloadSpeed: z.number().int().min(0).max(10_000_000).optional(),
  fileFormatMode: z.enum(["0", "1", "2"]).optional(),
  fileFormats: shape.fileFormats,
  forbidClientFilterSwitch: toggle,
  transIgnoreRegSwitch: toggle,
  transIgnoreReg: z.string().max(1024).optional(),
  transIgnoreSizeSwitch: toggle,
  transIgnoreSize: count.optional(),
};
const security = {
  ipWhitelist: z.string().max(1024).optional().refine((text) => text === undefined || shape.ipWhitelist.safeParse(text).success, "error.4019"),
  emailSenderType: z.enum(["0", "1", "2"]).optional(),
  notifyAdmin: toggle,
  shareEmailMode: z.enum(["0", "1"]).optional(),
};

function lines(text: string | undefined): string[] {
  return (text ?? "")
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);
}

export const STEP_KEYS = ["general", "storage", "transfer", "security"] as const;
const STEP_FIELDS = [general, storage, transfer, security] as const;
export type UserFormMode = "create" | "edit";

/** The step a field is on (for an error the engine reports, or the first invalid field). */
export function stepOfField(name: string): number {
  const top = name.split(/[.[]/)[0] ?? name;
  const index = STEP_FIELDS.findIndex((fields) => top in fields);
  return index < 0 ? 0 : index;
}

/** The schema of steps 0..upTo together (Next checks what is behind it; Finish and Skip check all). */
export function userFormSchema(mode: UserFormMode, upTo = STEP_FIELDS.length - 1) {
  const merged: Record<string, z.ZodType> = Object.assign({}, ...STEP_FIELDS.slice(0, upTo + 1));
  if (mode === "edit") {
    delete merged.account;
    merged.password = shape.password.optional();
  }
  return z.object(merged);
}
export type UserFormValue = {
  fullname?: string;
  account?: string;
  email?: string;
  password?: string;
  needUpdatePwd?: boolean;
  accountType?: "2" | "4" | "5" | "6";
  storageId?: string;
  home?: string;
  virtualDirectories?: { alias: string; path: string; storageId?: string }[];
  forbiddenPaths?: string;
  quota?: number;
  permission?: (typeof PERMISSION_NAMES)[number][];
  uploadNewOnly?: boolean;
  maxUploadSpeed?: number;
  maxDownloadSpeed?: number;
  fileFormatMode?: "0" | "1" | "2";
  fileFormats?: string;
  forbidClientFilterSwitch?: boolean;
  transIgnoreRegSwitch?: boolean;
  transIgnoreReg?: string;
  transIgnoreSizeSwitch?: boolean;
  transIgnoreSize?: number;
  ipWhitelist?: string;
  emailSenderType?: "0" | "1" | "2";
  notifyAdmin?: boolean;
  shareEmailMode?: "0" | "1";
};

/** The engine's settings of a valid form (everything but account and password). */
export function settingsOf(value: UserFormValue): UpdateUserBody {
  const permission = (value.permission ?? []).reduce((mask, name) => mask | Permission[name], 0);
  return {
    fullname: value.fullname ?? "",
    email: value.email ?? "",
    needUpdatePwd: value.needUpdatePwd === true,
    accountType: Number(value.accountType ?? "2") as 2 | 4 | 5 | 6,
    ...(value.home ? { home: value.home } : {}),
    ...(value.storageId ? { storageId: Number(value.storageId) } : {}),
    virtualDirectories: (value.virtualDirectories ?? []).map((v) => ({ alias: v.alias, path: v.path, ...(v.storageId ? { storageId: Number(v.storageId) } : {}) })),
    forbiddenPaths: lines(value.forbiddenPaths),
    quota: (value.quota ?? 0) * MB,
    permission: normalizePermission(permission),
    uploadNewOnly: value.uploadNewOnly === true,
    maxUploadSpeed: value.maxUploadSpeed ?? 0,
    maxDownloadSpeed: value.maxDownloadSpeed ?? 0,
    fileFormatMode: Number(value.fileFormatMode ?? "0"),
    fileFormats: value.fileFormats ?? "",
    forbidClientFilterSwitch: value.forbidClientFilterSwitch === true,
    transIgnoreRegSwitch: value.transIgnoreRegSwitch === true,
    transIgnoreReg: value.transIgnoreReg ?? "",
    transIgnoreSizeSwitch: value.transIgnoreSizeSwitch === true,
    transIgnoreSize: (value.transIgnoreSize ?? 0) * MB,
    ipWhitelist: value.ipWhitelist ?? "",
    emailSenderType: Number(value.emailSenderType ?? "1"),
    notifyAdmin: value.notifyAdmin === true,
    shareEmailMode: Number(value.shareEmailMode ?? "0"),
  };
}

export function createBodyOf(value: UserFormValue): CreateUserBody {
  return { account: value.account ?? "", password: value.password ?? "", ...settingsOf(value) };
}

const on = (flag: boolean) => (flag ? "on" : undefined);

/** The form's starting values: a new user's (with the default permission) or an existing user's. */
export function defaultsOf(user: AdminUser | null, defaultPermission: number): Record<string, unknown> {
  const permission = user ? user.permission : defaultPermission;
  const picked = PERMISSION_NAMES.filter((name) => (permission & Permission[name]) === Permission[name]);
  if (!user) return { accountType: "2", permission: picked, quota: "0", maxUploadSpeed: "0", maxDownloadSpeed: "0", fileFormatMode: "0", emailSenderType: "1", shareEmailMode: "0", needUpdatePwd: "on" };
  return {
    fullname: user.fullname,
    email: user.email,
    needUpdatePwd: on(user.needUpdatePwd),
    accountType: String(user.accountType),
    home: user.home,
    storageId: String(user.storageId),
    virtualDirectories: user.virtualDirectories.map((v) => ({ ...v, storageId: v.storageId === undefined ? "" : String(v.storageId) })),
    forbiddenPaths: user.forbiddenPaths.join("\n"),
    quota: String(Math.ceil(user.quota / MB)),
    permission: picked,
    uploadNewOnly: on(user.uploadNewOnly),
    maxUploadSpeed: String(user.maxUploadSpeed),
    maxDownloadSpeed: String(user.maxDownloadSpeed),
    fileFormatMode: String(user.fileFormatMode),
    fileFormats: user.fileFormats,
    forbidClientFilterSwitch: on(user.forbidClientFilterSwitch),
    transIgnoreRegSwitch: on(user.transIgnoreRegSwitch),
    transIgnoreReg: user.transIgnoreReg,
    transIgnoreSizeSwitch: on(user.transIgnoreSizeSwitch),
    transIgnoreSize: String(Math.ceil(user.transIgnoreSize / MB)),
    ipWhitelist: user.ipWhitelist,
    emailSenderType: String(user.emailSenderType),
    notifyAdmin: on(user.notifyAdmin),
    shareEmailMode: String(user.shareEmailMode),
  };
}

/** Which field an engine refusal belongs on (the message is the engine's, already translated). */
const FIELD_OF_CODE: Record<number, string> = {
  [ErrorCode.AccountExists]: "account",
  1021: "account",
  [ErrorCode.EmailExists]: "email",
  1022: "email",
  1023: "password",
  1024: "fullname",
  4125: "password",
  4019: "ipWhitelist",
  4004: "storageId",
  1097: "virtualDirectories",
  4157: "virtualDirectories",
};
export function fieldOfCode(code: number): string | null {
  return FIELD_OF_CODE[code] ?? null;
}
