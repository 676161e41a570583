import type { AutoCleanReport } from "../../../contract/autoclean";
import type { readAdminPost } from "~/admin/list-page.server";

type SignedIn = Awaited<ReturnType<typeof readAdminPost>>["admin"];

/** What the storage screen's action answers to the auto-clean buttons. */
export type AutoCleanAnswer = { intent: "autoclean"; ok: true; report: AutoCleanReport } | { intent: "autoclean"; ok: false; code: number };

/**
 * The "Run now" and "Dry run" buttons of a local storage (docs/storage.md, "Auto-clean"): the
 * storage screen's action hands it a post whose intent is "autoclean" (fields id, dryRun "1"/"0").
 */
export async function autoCleanAction(admin: SignedIn, form: FormData): Promise<AutoCleanAnswer> {
  const id = Number(form.get("id"));
  if (!Number.isInteger(id) || id <= 0) return { intent: "autoclean", ok: false, code: 4102 };
  const reply = await admin.call<AutoCleanReport>(`/api/admin/storages/${id}/autoclean/run`, { method: "POST", body: JSON.stringify({ dryRun: form.get("dryRun") === "1" }) });
  return reply.result && reply.data ? { intent: "autoclean", ok: true, report: reply.data } : { intent: "autoclean", ok: false, code: reply.code };
}
