import * as z from "zod";
import { DEFAULT_PORTS, TARGET_DIALECTS } from "../../../contract/database";

/** The intents of the page's posts: the target form's Test / Copy (asked) / Copy (confirmed), and the restart. */
export const TARGET_INTENTS = ["test", "copy", "copy-confirmed"] as const;

/** The target form (one schema for the action and for conform in the page); the engine checks the same rules (contract/database.ts). */
export const targetFormSchema = z.object({
  intent: z.enum(TARGET_INTENTS),
  dialect: z.enum(TARGET_DIALECTS),
  host: z
    .string({ error: "admin.database.host.invalid" })
    .trim()
    .min(1, "admin.database.host.invalid")
    .max(255, "admin.database.host.invalid")
    .regex(/^[A-Za-z0-9.\-:[\]_]+$/, "admin.database.host.invalid"),
  port: z.coerce.number({ error: "admin.database.port.invalid" }).int("admin.database.port.invalid").min(1, "admin.database.port.invalid").max(65535, "admin.database.port.invalid"),
  database: z
    .string({ error: "admin.database.database.invalid" })
    .trim()
    .min(1, "admin.database.database.invalid")
    .max(64, "admin.database.database.invalid")
    .regex(/^[A-Za-z0-9_$-]+$/, "admin.database.database.invalid"),
  user: z.string().min(1).max(128),
  password: z.string().max(256).optional().default(""),
  replace: z.literal("on").optional(),
});
export type TargetForm = z.infer<typeof targetFormSchema>;

export const TARGET_DEFAULTS = { dialect: "mysql", host: "127.0.0.1", port: String(DEFAULT_PORTS.mysql), database: "ferry", user: "ferry" } as const;
