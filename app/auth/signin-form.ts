import * as z from "zod";
import { typedPassword } from "~/components/new-password-fields";
import { accountLookupBody } from "../../contract/auth";

/**
 * The sign-in form of /signin and /admin/signin. Every field is bounded before anything is encoded
 * or sent: the account field takes an account or an e-mail address, so the e-mail's bound (the
 * account lookup's, contract/auth.ts) is the longest.
 */
export const signInSchema = z.object({
  account: z
    .string({ error: "auth.account.required" })
    .trim()
    .min(1, "auth.account.required")
    .max(accountLookupBody.shape.email.maxLength ?? 255, "auth.account.too-long"),
  password: typedPassword,
  redirectTo: z.string().optional(),
});
