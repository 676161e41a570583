import * as z from "zod";

/**
 * The share page's password form (one schema for the action and the browser). The engine removes
 * whitespace and checks the length itself; here only "something was typed" and a sane upper bound.
 */
export const shareLoginSchema = z.object({
  intent: z.literal("login"),
  password: z.string({ error: "auth.password.required" }).trim().min(1, "auth.password.required").max(64),
});
