import { data, redirect } from "@remix-run/node";
import { parseFormData } from "~/components/ui/form";
import { getT } from "~/i18n/i18next.server";
import type { SignedIn } from "~/utils/session.server";
import { redirectWithToast } from "~/utils/toast.server";
import { SITE_ASSETS, type SiteAsset } from "../../../contract/site-design";
import { designSchema, licenceSchema, PAGE, uploadSchemas } from "./schema";

/** The engine's paths (docs/admin-api.md, "Site design" and "Licence"). */
export const DESIGN_API = "/api/admin/site-design";
export const LICENCE_API = "/api/admin/licence";

type Init = { headers: HeadersInit };
const isAsset = (value: unknown): value is SiteAsset => typeof value === "string" && (SITE_ASSETS as readonly string[]).includes(value);

/** Every post of the site design screen, by its intent. A refusal comes back as the form's error (or a toast). */
export async function siteDesignAction(request: Request, admin: SignedIn, form: FormData, init: Init) {
  const t = await getT(request);
  const intent = form.get("intent");
  const done = (message: string) => redirectWithToast(PAGE, { type: "success", message: t(message) }, init);
  // The engine's refusal in the page's language, its {{placeholders}} filled from the reply's data (sizes, pixel limits, types).
  const refusal = (reply: { code: number; data?: unknown }) => {
    const vars = Object.fromEntries(Object.entries(reply.data && typeof reply.data === "object" ? reply.data : {}).map(([k, v]) => [k, Array.isArray(v) ? v.join(", ") : v]));
    return t(`error.${reply.code}`, { ...vars, defaultValue: t("global.error.something-wrong", { code: reply.code }) });
  };

  if (intent === "save") {
    const submission = parseFormData(form, designSchema);
    if (submission.status !== "success") return data({ form: "save", submission: submission.reply() }, init);
    const { intent: _, ...body } = submission.value;
    const reply = await admin.call(DESIGN_API, { method: "PATCH", body: JSON.stringify(body) });
    if (!reply.result) return data({ form: "save", submission: submission.reply({ formErrors: [refusal(reply)] }) }, init);
    return done("admin.site.saved");
  }

  if (intent === "upload") {
    const asset = form.get("asset");
    if (!isAsset(asset)) throw new Response("Unknown image", { status: 400 });
    const submission = parseFormData(form, uploadSchemas[asset]);
    if (submission.status !== "success") return data({ form: `upload-${asset}`, submission: submission.reply() }, init);
    const bytes = Buffer.from(await submission.value.image.arrayBuffer());
    const reply = await admin.call(`${DESIGN_API}/${asset}`, { method: "PUT", body: bytes, headers: { "Content-Type": "application/octet-stream" } });
    if (!reply.result) return data({ form: `upload-${asset}`, submission: submission.reply({ formErrors: [refusal(reply)], hideFields: ["image"] }) }, init);
    return done(`admin.site.${asset}.uploaded`);
  }

  if (intent === "licence") {
    const submission = parseFormData(form, licenceSchema);
    if (submission.status !== "success") return data({ form: "licence", submission: submission.reply() }, init);
    const reply = await admin.call(LICENCE_API, { method: "POST", body: JSON.stringify({ licence: await submission.value.licence.text() }) });
    if (!reply.result) return data({ form: "licence", submission: submission.reply({ formErrors: [refusal(reply)], hideFields: ["licence"] }) }, init);
    return done("admin.licence.activated");
  }

  // The rest changes things at once: with JavaScript a dialog asked; without it the page asks first.
  const confirmed = form.get("confirmed") === "1";
  const run = async (ask: string, path: string, method: string, message: string) => {
    if (!confirmed) return redirect(`${PAGE}?confirm=${ask}`, init);
    const reply = await admin.call(path, { method });
    return redirectWithToast(PAGE, reply.result ? { type: "success", message: t(message) } : { type: "error", message: refusal(reply) }, init);
  };
  if (intent === "reset") return run("reset", `${DESIGN_API}/reset`, "POST", "admin.site.reset.done");
  if (intent === "remove") {
    const asset = form.get("asset");
    if (!isAsset(asset)) throw new Response("Unknown image", { status: 400 });
    return run(`remove-${asset}`, `${DESIGN_API}/${asset}`, "DELETE", `admin.site.${asset}.removed`);
  }
  if (intent === "licence-remove") return run("licence-remove", LICENCE_API, "DELETE", "admin.licence.removed");
  throw new Response("Unknown action", { status: 400 });
}
