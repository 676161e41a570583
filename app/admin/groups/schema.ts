import * as z from "zod";
import { homePath } from "../../../contract/admin";
import { Permission, PERMISSION_DEFAULT, PERMISSION_FULL } from "../../../contract/permissions";

/** The group dialog's quota is typed in GB (2^30 bytes); the engine keeps bytes. */
export const GB = 2 ** 30;
export const QUOTA_GB_MAX = 1_000_000;
/** Mbps, the engine's unit for group speeds (contract/admin.ts). */
export const SPEED_MBPS_MAX = 100_000;

/** What a member may do in the group space: the dialog offers two masks. */
export const MEMBER_PERMISSIONS = { read: PERMISSION_DEFAULT, full: PERMISSION_FULL } as const;
export type MemberLevel = keyof typeof MEMBER_PERMISSIONS;
export const levelOf = (mask: number): MemberLevel => ((mask & Permission.Upload) === Permission.Upload ? "full" : "read");

/**
 * One associated user as the dialog posts it: `<userId>:<read|full>`; the page without JavaScript
 * also posts `<userId>:none` for a member whose select says Remove (dropped from the list).
 */
const member = z
  .string()
  .max(32)
  .regex(/^\d{1,12}:(read|full|none)$/)
  .transform((v) => {
    const [id, level] = v.split(":") as [string, MemberLevel | "none"];
    return { userId: Number(id), groupPermission: level === "none" ? null : MEMBER_PERMISSIONS[level] };
  });

/** The add / edit dialog's form, shared by the dialog (conform) and the action. */
export const groupFormSchema = z.object({
  intent: z.literal("save"),
  id: z.coerce.number().int().positive().optional(),
  name: z.string().trim().min(1).max(64),
  home: z.union([z.literal(""), homePath]).optional(),
  /** The storage of the home (GET /api/admin/storages/choices); empty: the default storage. */
  storageId: z.union([z.literal(""), z.string().regex(/^\d{1,12}$/)]).optional(),
  maxUploadSpeed: z.coerce.number().int().min(0).max(SPEED_MBPS_MAX),
  maxDownloadSpeed: z.coerce.number().int().min(0).max(SPEED_MBPS_MAX),
  uploadNewOnly: z.literal("on").optional(),
  quotaGb: z.coerce.number().int().min(0).max(QUOTA_GB_MAX),
  member: z
    .array(member)
    .max(1000)
    .default([])
    .transform((list) => list.filter((m): m is { userId: number; groupPermission: number } => m.groupPermission !== null)),
});
export type GroupForm = z.output<typeof groupFormSchema>;

export const deleteSchema = z.object({ intent: z.literal("delete"), id: z.coerce.number().int().positive(), confirmed: z.literal("1").optional() });

/** The list's query (q, page, size) a page without JavaScript goes back to: `?…` or empty. */
export const backSchema = z.string().max(512).regex(/^(\?.*)?$/).catch("");
