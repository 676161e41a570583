import { redirect } from "@remix-run/node";
import { parseFormData } from "~/components/ui/form";
import { getT } from "~/i18n/i18next.server";
import type { SignedIn } from "~/utils/session.server";
import { redirectWithToast } from "~/utils/toast.server";
import { clientTlsUploadSchema, tlsUploadSchema } from "./schema";

/** The engine's paths (docs/admin-api.md, "TLS certificate" and "Client TLS"). */
export const TLS_API = "/api/admin/tls";
export const CLIENT_TLS_API = "/api/admin/client-tls";

type Headers = { headers: HeadersInit };

/** Upload of the TLS screen: the two files' text to the engine; its refusal (4029–4032, 4520–4522) as the form's error. */
export async function uploadCertificate(request: Request, admin: SignedIn, form: FormData, page: string, init: Headers) {
  const submission = parseFormData(form, tlsUploadSchema);
  if (submission.status !== "success") return { submission: submission.reply() };
  const [certificate, privateKey] = await Promise.all([submission.value.certificate.text(), submission.value.privateKey.text()]);
  const reply = await admin.call(`${TLS_API}/certificate`, { method: "PUT", body: JSON.stringify({ certificate, privateKey }) });
  if (!reply.result) return { submission: submission.reply({ formErrors: [`error.${reply.code}`] }) };
  const t = await getT(request);
  return redirectWithToast(page, { type: "success", message: t("admin.tls.upload.done") }, init);
}

export async function uploadAuthorities(request: Request, admin: SignedIn, form: FormData, page: string, init: Headers) {
  const submission = parseFormData(form, clientTlsUploadSchema);
  if (submission.status !== "success") return { submission: submission.reply() };
  const authorities = await submission.value.authorities.text();
  const reply = await admin.call(CLIENT_TLS_API, { method: "PUT", body: JSON.stringify({ authorities }) });
  if (!reply.result) return { submission: submission.reply({ formErrors: [`error.${reply.code}`] }) };
  const t = await getT(request);
  return redirectWithToast(page, { type: "success", message: t("admin.client-tls.upload.done") }, init);
}

/**
 * A change that needs a confirmation (remove, non-TLS on/off): unconfirmed (a post without
 * JavaScript) it goes back to the page's question; confirmed it runs and comes back with a toast.
 */
export async function confirmedCall(request: Request, admin: SignedIn, form: FormData, options: { page: string; ask: string; path: string; method: string; body?: unknown; done: string }, init: Headers) {
  if (form.get("confirmed") !== "1") return redirect(`${options.page}?confirm=${options.ask}`, init);
  const reply = await admin.call(options.path, { method: options.method, ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }) });
  const t = await getT(request);
  return redirectWithToast(options.page, reply.result ? { type: "success", message: t(options.done) } : { type: "error", message: t(`error.${reply.code}`) }, init);
}
