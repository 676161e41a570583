import * as z from "zod";
import { EMAIL_PATTERN } from "../../../contract/validation";

/** The Email setting's test form: an address (the administrator's own by default). */
export const testMailSchema = z.object({
  intent: z.literal("test"),
  to: z.string().trim().max(255).regex(EMAIL_PATTERN, "admin.email.test.to.invalid"),
});
