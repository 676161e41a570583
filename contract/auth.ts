import * as z from "zod";

/** POST /api/user/login. */
export const loginBody = z
  .object({ UK: z.string().min(1).max(4096).describe("Encoded account and password joined by '.' (docs/credential-encoding.md).") })
  .strict();

export const loginData = z.object({
  token: z.string().describe("Access token (Authorization: Bearer)."),
  refresh_token: z.string().describe("Refresh token for PUT /api/user/auth."),
  websocket_token: z.string().length(128).describe("File-server token: two 64-character halves."),
  expires_in: z.number().int().describe("Access token lifetime in seconds."),
  userId: z.number().int(),
  account: z.string(),
  accountType: z.number().int(),
  isAdmin: z.boolean(),
  softVersion: z.string(),
  loginFailTimes: z.number().int(),
  lockPeriod: z.number().int().describe("Lockout window in seconds."),
  maxLockTimes: z.number().int(),
});

/** Data of a 1005 WrongPassword answer. */
export const wrongPasswordData = z.object({
  loginFailTimes: z.number().int(),
  lockPeriod: z.number().int().describe("Seconds."),
  maxLockTimes: z.number().int(),
});

/** PUT /api/user/password/update: with a bearer token (in-app change) or without (forced reset). */
export const passwordUpdateBody = z
  .object({
    account: z.string().min(1).max(64),
    oldPassword: z.string().min(1).max(2048).describe("Encoded."),
    newPassword: z.string().min(1).max(2048).describe("Encoded."),
    needUpdatePwd: z.boolean().optional(),
    adminId: z.union([z.number().int(), z.string().max(64)]).optional(),
  })
  .strict();

/** PUT /api/user/auth: the refresh token is the bearer. */
export const refreshData = z.object({ token: z.string(), expires_in: z.number().int() });

/** POST /api/user/account/lookup: the spec's "account lookup by e-mail" (action get_account). */
export const accountLookupBody = z
  .object({ action: z.literal("get_account"), email: z.string().min(3).max(255) })
  .strict();
export const accountLookupData = z.object({ result: z.number().int().describe("0 when resolved."), account: z.string() });
