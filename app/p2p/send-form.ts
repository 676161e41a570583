import * as z from "zod";
import { parseDeviceId } from "./device-id";

/**
 * The sender's form (spec section 5, "P2P send"): a receiver id (app.p2p.error1 when missing) and at
 * least one entry to send (app.p2p.error2). Used by the page before it asks and by the route's action.
 */
export const sendSchema = z.object({
  receiver: z
    .string({ error: "app.p2p.error1" })
    .trim()
    .min(1, "app.p2p.error1")
    .refine((v) => parseDeviceId(v) !== null, "p2p.id-format")
    .transform((v) => parseDeviceId(v)!),
  entries: z.coerce.number({ error: "app.p2p.error2" }).int().min(1, "app.p2p.error2"),
});

/** What the action answers: the receiver is ready (with its account and whether its page is open), or why not. */
export type SendCheck =
  | { ok: true; id: string; account: string; online: boolean }
  | { ok: false; errors: { receiver?: string; entries?: string; form?: string } };

/** The status call's results (spec section 7): 33 no such device, 35 busy. */
export const STATUS_ERRORS: Readonly<Record<number, string>> = { 33: "app.p2p.error3", 35: "app.p2p.error4" };
