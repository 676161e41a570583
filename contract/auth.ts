import * as z from "zod";

/**
 * Longest encoded password: MAX_PASSWORD_INPUT (128) characters of 4-byte UTF-8 encode to 855, so
 * 1024 refuses only what the engine would refuse anyway, before anything is decoded or hashed.
 */
export const ENCODED_PASSWORD_MAX = 1024;
/** Longest UK: an encoded account or e-mail address (255 characters) and an encoded password. */
export const UK_MAX = 2048;

/** The single administrator's account, created at the first start (server/services.ts). */
export const ADMIN_ACCOUNT = "admin";

/** POST /api/user/login. */
export const loginBody = z
  .object({ UK: z.string().min(1).max(UK_MAX).describe("Encoded account and password joined by '.' (docs/credential-encoding.md).") })
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

/**
 * Data of a 1050 AccountLocked or 4116 IpLocked answer when the lock ends by itself (wrong passwords):
 * when, and how long is left, so a client can say how long to wait. An administrator's lock has no data.
 */
export const lockedData = z.object({
  lockedUntil: z.number().int().describe("Unix seconds when the lock ends."),
  retryAfter: z.number().int().min(1).describe("Seconds left until then (at least 1)."),
});
export type LockedData = z.infer<typeof lockedData>;

/** PUT /api/user/password/update: with a bearer token (in-app change) or without (forced reset). */
export const passwordUpdateBody = z
  .object({
    account: z.string().min(1).max(255).describe("The account name, or its e-mail address."),
    oldPassword: z.string().min(1).max(ENCODED_PASSWORD_MAX).describe("Encoded."),
    newPassword: z.string().min(1).max(ENCODED_PASSWORD_MAX).describe("Encoded."),
    needUpdatePwd: z.boolean().optional(),
    adminId: z.union([z.number().int(), z.string().max(64)]).optional(),
  })
  .strict();

/** PUT /api/user/auth: the refresh token is the bearer; it is replaced by `refresh_token` (rotation, docs/security.md section 3). */
export const refreshData = z.object({
  token: z.string(),
  expires_in: z.number().int(),
  refresh_token: z.string().describe("The new refresh token; the one sent stops working."),
});

/** POST /api/user/account/lookup: the spec's "account lookup by e-mail" (action get_account). */
export const accountLookupBody = z
  .object({ action: z.literal("get_account"), email: z.string().min(3).max(255) })
  .strict();
export const accountLookupData = z.object({ result: z.number().int().describe("0 when resolved."), account: z.string() });
