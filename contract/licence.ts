import * as z from "zod";

/*
 * Licences (docs/licence.md): a file an administrator uploads that unlocks an edition other than
 * free. The file is JSON `{ "payload": <base64 of the payload's JSON>, "signature": <base64 Ed25519
 * signature of the payload's bytes> }`; the engine verifies it offline against the public key built
 * into it (server/licence/public-key.ts).
 */

/** The editions (spec section 1); server/config.ts EDITIONS is the same list. */
export const EDITION_NAMES = ["free", "pro", "smb", "enterprise"] as const;

/** The largest licence file the engine reads (a real one is well under 1 KiB). */
export const LICENCE_MAX_BYTES = 16 * 1024;

/** What a licence grants: signed, so nothing here can be changed without the vendor's key. */
export const licencePayload = z
  .object({
    id: z.string().min(1).max(64),
    edition: z.enum(EDITION_NAMES),
    licensee: z.string().min(1).max(200),
    userLimit: z.number().int().min(1).nullable().describe("User accounts allowed (the administrator not counted); null: unlimited."),
    issuedAt: z.number().int().min(0).describe("Unix seconds."),
    expiresAt: z.number().int().min(0).nullable().describe("Unix seconds; null: never expires."),
  })
  .strict();
export type LicencePayload = z.infer<typeof licencePayload>;

/** The file as uploaded. */
export const licenceFile = z.object({ payload: z.string().min(1).max(LICENCE_MAX_BYTES), signature: z.string().min(1).max(200) }).strict();
export type LicenceFile = z.infer<typeof licenceFile>;

/** POST /api/admin/licence: the licence file's text. */
export const licenceUploadBody = z.object({ licence: z.string().min(1).max(LICENCE_MAX_BYTES) }).strict();

/** GET /api/admin/licence → data: the edition the engine runs as, and why. */
export const licenceState = z.object({
  edition: z.enum(EDITION_NAMES).describe("The edition in effect now."),
  source: z
    .enum(["licence", "environment", "default"])
    .describe("licence: a valid licence; environment: FERRY_EDITION, the unlicensed development override; default: free, no licence."),
  status: z.enum(["activated", "inactivated"]).describe("activated: a valid licence is in effect."),
  licence: licencePayload.nullable().describe("The stored licence's terms (also when it expired); null: none stored or unreadable."),
  activatedAt: z.number().int().nullable().describe("Unix seconds the stored licence was uploaded."),
  problem: z
    .object({ code: z.union([z.literal(1092), z.literal(1093)]), reason: z.string() })
    .nullable()
    .describe("Why the stored licence is not in effect: 1092 expired, 1093 invalid (tampered, wrong key, unreadable)."),
  userLimit: z.number().int().nullable().describe("Accounts allowed now; null: unlimited."),
  userCount: z.number().int().describe("User accounts created (the administrator not counted)."),
  clientLimit: z.number().int().nullable().describe("Desktop clients online at once; null: unlimited."),
  siteDesign: z.boolean().describe("Site customisation is allowed (enterprise)."),
  preview: z.boolean().describe("Inline preview is allowed (FERRY_PREVIEW and the edition)."),
});
export type LicenceState = z.infer<typeof licenceState>;
