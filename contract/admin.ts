import * as z from "zod";
import { PERMISSION_MAX } from "./permissions";
import { ACCOUNT_PATTERN, EMAIL_PATTERN, NAME_FORMAT_MESSAGE, nameProblem, PERSON_NAME_MAX } from "./validation";
import { accountType, filterSwitches } from "./users";
import { ipWhitelistProblem } from "./ip-whitelist";

/** The administrator API (Ferry's own design; docs/admin-api.md). Passwords here are plain JSON over TLS. */

const permission = z.number().int().min(0).max(PERMISSION_MAX);
/** A space's storage quota in bytes; 0 = unlimited. */
const quota = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).describe("Bytes the space may hold; 0 unlimited. Uploads and copies past it are refused with 4155.");

/** What a space holds now (its home folder, uploads in progress left out), as last measured. */
export const spaceUsage = z.object({
  used: z.number().int().describe("Bytes in files."),
  files: z.number().int(),
  folders: z.number().int().describe("Folders below the home, not the home itself."),
  measuredAt: z.number().int().describe("Unix seconds of the last full count; engine-made changes since then are included."),
});
export type SpaceUsage = z.infer<typeof spaceUsage>;
/** A home is a folder inside Ferry's storage root: "/", "/team/alice"; no "." or ".." segments. */
export const homePath = z
  .string()
  .max(1024)
  // eslint-disable-next-line no-control-regex -- control characters are refused in homes
  .regex(/^\/(?:[^/\\\u0000-\u001f]+(?:\/[^/\\\u0000-\u001f]+)*)?$/, "home must be an absolute path like /alice")
  .refine((p) => !p.split("/").some((s) => s === "." || s === ".."), "home may not contain . or ..");

/**
 * A virtual directory's alias (admin spec section 5): not empty, not only "/", no "//", no trailing
 * "/", none of : * < > | " \ ?; Ferry also wants it to be one valid folder name at the top of the
 * personal space ("/Projects" or "Projects"). The normalised alias ("/Projects"), or null when the
 * rule is broken (1097, InvalidVirtualPathFormat).
 */
export function virtualAlias(alias: string): string | null {
  if (typeof alias !== "string" || alias === "" || alias === "/" || alias.includes("//") || alias.endsWith("/")) return null;
  const name = (alias.startsWith("/") ? alias.slice(1) : alias).normalize("NFC");
  if (nameProblem(name) !== null || name.toLowerCase() === ".ferry-tmp") return null;
  return `/${name}`;
}

/** The storage a home or a virtual directory's target is on (GET /api/admin/storages). */
const storageId = z.number().int().positive();

/** A virtual directory: `alias` appears at the top of the user's personal space and is the folder `path` of a storage (`storageId`, by default the home's). */
export const virtualDirectory = z
  .object({
    alias: z.string().max(256).describe("One folder name at the top of the personal space, e.g. /Projects (1097 when malformed or repeated)."),
    path: homePath.describe("The target folder, relative to its storage's root, like a home; created when missing (4157 when it is a file)."),
    storageId: storageId.optional().describe("The storage the target is on (contract/storage.ts); absent: the user's home storage. 4004 when there is no such storage."),
  })
  .strict();
export type VirtualDirectory = z.infer<typeof virtualDirectory>;

const userSettings = {
  fullname: z.string().max(PERSON_NAME_MAX).refine((n) => n === "" || nameProblem(n, PERSON_NAME_MAX) === null, NAME_FORMAT_MESSAGE),
  email: z.union([z.literal(""), z.string().max(255).regex(EMAIL_PATTERN)]),
  accountType,
  permission,
  home: homePath,
  storageId: storageId.describe("The storage the home is on; on create, absent: the default storage. Changing it does not move files: the home folder is made on the new storage. 4004 when there is no such storage."),
  locked: z.boolean(),
  needUpdatePwd: z.boolean().describe("Force a password change at the next sign-in."),
  emailSenderType: z
    .number()
    .int()
    .min(0)
    .max(2)
    .describe("Whose SMTP account the user's share mails and owner notices go through: 0 none (refused with 4135), 1 the server's (a new user's default), 2 the user's own (no fallback; only type 2 may read and save its own settings). docs/mail.md, \"Whose account\"."),
  uploadNewOnly: z.boolean(),
  maxUploadSpeed: z.number().int().min(0).describe("KB/s, 0 unlimited."),
  maxDownloadSpeed: z.number().int().min(0).describe("KB/s, 0 unlimited."),
  fileFormatMode: z.number().int().min(0).max(2).describe("0 off, 1 whitelist, 2 blacklist."),
  fileFormats: z.string().max(254).describe("Extensions separated by ';'."),
  ipWhitelist: z
    .string()
    .max(1024)
    .refine((text) => ipWhitelistProblem(text) === null, {
      message: "IP whitelist entries: 10.0.0.7, 10.80.90.[1-100], 10.0.0.0/8, 2001:db8::/32, separated by ';'",
      params: { ferryError: "IpWhitelistFormat" },
    })
    .describe("IP login whitelist: addresses, per-octet ranges (10.80.90.[1-100], *), IPv4/IPv6 CIDR, separated by ';'. Empty: any address. A sign-in from outside: 1091; a bad entry: 4019."),
  notifyAdmin: z
    .boolean()
    .describe("The user's committed uploads and finished downloads (a zip is one) make the administrator a notice, gathered per FERRY_TRANSFER_NOTICE_WINDOW, and a mail when the server has a mail account and the administrator an address. docs/mail.md, \"Transfer notices to the administrator\"."),
  shareEmailMode: z.number().int().min(0).max(1).describe("Share mails to several recipients: 0 one mail to all, 1 a separate mail to each (they do not see each other)."),
  forbiddenPaths: z.array(homePath).max(100),
  virtualDirectories: z.array(virtualDirectory).max(10).describe("Aliases in the personal space mapped to folders of the storage (docs/storage.md, \"Virtual directories\")."),
  quota,
  ...filterSwitches.shape,
};

export const createUserBody = z
  .object({
    account: z.string().regex(ACCOUNT_PATTERN),
    password: z.string().min(1).max(64),
    ...z.object(userSettings).partial().shape,
  })
  .strict();
export type CreateUserBody = z.infer<typeof createUserBody>;

export const updateUserBody = z.object(userSettings).partial().strict();
export type UpdateUserBody = z.infer<typeof updateUserBody>;

export const resetPasswordBody = z
  .object({ password: z.string().min(1).max(64), needUpdatePwd: z.boolean().default(true) })
  .strict();

export const adminUser = z.object({
  id: z.number().int(),
  account: z.string(),
  role: z.enum(["user", "admin"]),
  online: z.boolean(),
  connections: z.number().int().min(0).describe("Connections now: signed-in sessions with a live access token, each desktop client's file-server socket counted instead of its session; across every engine instance."),
  addresses: z.array(z.string()).describe("The distinct addresses of those connections (a session's sign-in address, a desktop socket's own), sorted."),
  lockedUntil: z.number().int().describe("Unix seconds of an automatic lockout's end; 0 when none."),
  createTime: z.number().int(),
  groups: z.array(z.object({ groupId: z.number().int(), groupName: z.string(), groupPermission: z.number().int() })),
  ...userSettings,
  email: z.string(),
  space: spaceUsage.nullable().describe("null while the General settings' user space statistics are off (no home is walked)."),
});
export type AdminUser = z.infer<typeof adminUser>;

/** The longest search text a console list takes (the engine refuses more; the console's search boxes stop there). */
export const SEARCH_MAX = 64;

export const listQuery = z
  .object({
    pageNum: z.coerce.number().int().min(1).default(1),
    pageSize: z.coerce.number().int().min(1).max(100).default(10),
    search: z.string().max(SEARCH_MAX).optional(),
  })
  .strict();

/** The lists' direction: asc or desc; anything else is refused (400). */
const listOrder = z.enum(["asc", "desc"]).default("asc").describe("Direction of orderBy: asc (default) or desc.");

/** GET /api/admin/users: orderBy account (case-insensitive, as stored in lower case), fullname (case-insensitive), createTime; ties by id. */
export const USER_ORDER_BY = ["account", "fullname", "createTime"] as const;
export const userListQuery = listQuery
  .extend({
    orderBy: z
      .enum(USER_ORDER_BY)
      .optional()
      .describe("Sorts before paging: account (case-insensitive), fullname (case-insensitive), createTime; equal values by id in the same direction. Without it: by id, oldest first."),
    order: listOrder,
  })
  .strict();

/** GET /api/admin/groups: orderBy name (case-insensitive), createTime, members (their count); ties by id. */
export const GROUP_ORDER_BY = ["name", "createTime", "members"] as const;
export const groupListQuery = listQuery
  .extend({
    orderBy: z
      .enum(GROUP_ORDER_BY)
      .optional()
      .describe("Sorts before paging: name (case-insensitive), createTime, members (their count); equal values by id in the same direction. Without it: by id, oldest first."),
    order: listOrder,
  })
  .strict();

export const pageOf = <T extends z.ZodType>(item: T) =>
  z.object({ list: z.array(item), total: z.number().int(), size: z.number().int(), current: z.number().int() });

export const idParams = z.object({ id: z.coerce.number().int().positive() }).strict();
export const memberParams = z
  .object({ id: z.coerce.number().int().positive(), userId: z.coerce.number().int().positive() })
  .strict();

const groupSpeed = z.number().int().min(0).describe("Mbps (10^6 bits/s), 0 unlimited; for all transfers in the group space together (docs/file-server.md, \"Speed limits\").");
const groupSettings = {
  home: homePath,
  storageId: storageId.describe("The storage the home is on; on create, absent: the default storage. Changing it does not move files. 4004 when there is no such storage."),
  maxUploadSpeed: groupSpeed,
  maxDownloadSpeed: groupSpeed,
  uploadNewOnly: z.boolean(),
  quota,
  ...filterSwitches.shape,
};
/** Checked by the accounts service with the name rule (nameProblem), so that a bad name answers the spec's 4161. */
const groupName = z.string().trim().min(1).max(64);

export const createGroupBody = z.object({ name: groupName, ...z.object(groupSettings).partial().shape }).strict();
export type CreateGroupBody = z.infer<typeof createGroupBody>;
export const updateGroupBody = z.object({ name: groupName, ...groupSettings }).partial().strict();
export type UpdateGroupBody = z.infer<typeof updateGroupBody>;

export const adminGroup = z.object({
  id: z.number().int(),
  name: z.string(),
  createTime: z.number().int(),
  members: z.array(z.object({ userId: z.number().int(), account: z.string(), groupPermission: z.number().int() })),
  ...groupSettings,
  space: spaceUsage.nullable().describe("null while the General settings' group space statistics are off."),
});
export type AdminGroup = z.infer<typeof adminGroup>;

export const memberBody = z.object({ groupPermission: permission }).strict();

/* Notifications: contract/notifications.ts. */

export const securitySettings = z.object({
  lockTimes: z.number().int().min(3).max(30).describe("Wrong passwords that lock an account or address."),
  lockMinutes: z.number().int().min(1).max(1440).describe("Window in which they count, and lock duration."),
  allowUserSetPassword: z.boolean(),
  weakPasswords: z.array(z.string().min(1).max(64)).max(1000),
  fileFormatMode: z
    .union([z.literal(0), z.literal(1), z.literal(2)])
    .describe("Server-wide transfer file-format limit, on top of each user's own: 0 off, 1 only the listed extensions, 2 all but the listed ones; uploads and downloads naming a refused file get 4340."),
  fileFormats: z.string().max(254).describe("Extensions separated by ';' (under 255 characters), e.g. exe;bat;tar.gz."),
  defaultPermission: permission.describe(
    "Permission of a new user created without one (admin API, `ferry user create`); List;Download (6) unless changed.",
  ),
});
export type SecuritySettings = z.infer<typeof securitySettings>;
export const securitySettingsBody = securitySettings.partial().strict();
