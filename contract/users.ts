import * as z from "zod";

export const ACCOUNT_TYPES = { Normal: 2, Domain: 4, Email: 5, Linux: 6 } as const;
export const accountType = z.union([z.literal(2), z.literal(4), z.literal(5), z.literal(6)]);

/** Switches shared by a user and a group (the client's transfer filters). */
export const filterSwitches = z.object({
  syncSwitch: z.boolean(),
  forbidClientFilterSwitch: z.boolean(),
  transIgnoreRegSwitch: z.boolean(),
  transIgnoreReg: z.string().describe("Skip patterns with wildcards, ';'-separated."),
  transIgnoreSizeSwitch: z.boolean(),
  transIgnoreSize: z.number().int().describe("Skip files over this size, bytes."),
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
  emailSenderType: z.number().int().describe("0 none, 1 the server's mail account, 2 the user's own."),
  emailAccount: z.string(),
  needUpdatePwd: z.boolean(),
  create_time: z.number().int(),
});
export type UserInfo = z.infer<typeof userInfo>;
