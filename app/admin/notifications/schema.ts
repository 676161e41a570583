import * as z from "zod";
import { NOTICE_CONTENT_MAX, NOTICE_TITLE_MAX, NOTICE_WAYS } from "../../../contract/notifications";

/**
 * The compose form, shared by the dialog (conform) and the action. Subject and content are checked
 * here; the way and the receivers are the engine's rules (4440, 4441, 4442), whose translated
 * answers the form shows, so the page says the same with and without JavaScript.
 */
export const composeSchema = z.object({
  intent: z.literal("send"),
  title: z.string().trim().min(1).max(NOTICE_TITLE_MAX),
  content: z.string().min(1).max(NOTICE_CONTENT_MAX),
  to: z.enum(["picked", "all"]).default("picked"),
  way: z.array(z.enum(NOTICE_WAYS)).max(2).default([]),
  receiver: z.array(z.coerce.number().int().positive()).max(1000).default([]),
});
export type ComposeForm = z.output<typeof composeSchema>;

/** The list's query (q, page, size, order) a page without JavaScript goes back to: `?…` or empty. */
export const backSchema = z.string().max(512).regex(/^(\?.*)?$/).catch("");

/** Ids of a delete: one `id`, several `id`s (the table's boxes), or `ids` as "1,2,3" (the confirmation's). */
export function idsOf(form: FormData): number[] {
  const raw = [...form.getAll("id"), ...String(form.get("ids") ?? "").split(",")].map((v) => String(v).trim()).filter(Boolean);
  const ids = raw.filter((v) => /^\d{1,12}$/.test(v)).map(Number);
  return [...new Set(ids)].slice(0, 1000);
}
