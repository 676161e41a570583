import * as z from "zod";

export const ACCOUNT_TYPES = { Normal: 2, Domain: 4, Email: 5, Linux: 6 } as const;
export const accountType = z.union([z.literal(2), z.literal(4), z.literal(5), z.literal(6)]);

/** Switches shared by a user and a group (the client's transfer filters). */
/**
 * A user's or a group's sync and transfer-filter settings. The filter (the user's on the personal
 * space, the group's on a group space) is enforced by the engine on every upload and download
 * (docs/file-server.md, "File filter"; 4342 FileFiltered); the desktop client reads all six here.
 */
export const filterSwitches = z.object({
  syncSwitch: z.boolean().describe("Sync folders allowed (the desktop client acts on it)."),
  forbidClientFilterSwitch: z.boolean().describe("The desktop client may not add a filter of its own (the client acts on it)."),
  transIgnoreRegSwitch: z.boolean().describe("Skip the files transIgnoreReg names."),
  transIgnoreReg: z
    .string()
    .describe(
      "Skip patterns, ';'-separated, wildcards * and ?, case-insensitive: without '/' matched against the file name (*.tmp), with '/' against its path in the space (/build/*: from the root; cache/*: at any depth). Skipped files are refused on upload (4342), refused when named in a download and left out of a folder's zip.",
    ),
  transIgnoreSizeSwitch: z.boolean().describe("Skip files larger than transIgnoreSize."),
  transIgnoreSize: z.number().int().describe("Skip files over this size, bytes (0: no limit), on upload and download as transIgnoreReg."),
});

export const groupMembership = filterSwitches.extend({
  groupId: z.number().int(),
  groupName: z.string(),
  groupPermission: z.number().int(),
  userHomeSize: z.number().int().describe("Bytes held in the group's home."),
  create_time: z.number().int().describe("Unix seconds."),
});

/** GET /api/user/group/list → data: the caller's groups, for the /group page. */
export const groupListData = z.object({ groupList: z.array(groupMembership) });

/** GET /api/user/info → data.user. */
export const userInfo = filterSwitches.extend({
  userId: z.number().int(),
  account: z.string(),
  fullname: z.string(),
  email: z.string(),
  accountType: accountType,
  isAdmin: z.boolean(),
  permission: z.number().int(),
  groupList: z.array(groupMembership),
  emailSenderType: z.number().int().describe("Whose account the user's mails go through: 0 none (no mail), 1 the server's mail account, 2 the user's own (E-mail settings are offered only then)."),
  emailAccount: z.string(),
  needUpdatePwd: z.boolean(),
  create_time: z.number().int(),
});
export type UserInfo = z.infer<typeof userInfo>;
