import { data, redirect } from "@remix-run/node";
import type * as z from "zod";
import { parseFormData } from "~/components/ui/form";
import { getT } from "~/i18n/i18next.server";
import { readForm } from "~/utils/form.server";
import { requireAdmin, type SignedIn } from "~/utils/session.server";
import { redirectWithToast } from "~/utils/toast.server";
import { confirmSchema } from "./schema";

/** The engine's paths (docs/admin-api.md, "TLS certificate" and "Client TLS"). */
export const TLS_API = "/api/admin/tls";
export const CLIENT_TLS_API = "/api/admin/client-tls";

type Headers = { headers: HeadersInit };

/** A change that needs a confirmation: the engine call and the toast's message key. */
export interface ConfirmedChange {
  ask: string;
  path: string;
  method: string;
  body?: unknown;
  done: string;
}

/** A PEM upload: the form's schema, the engine's PUT path, the body made of the parsed files, the toast's message key. */
export interface PemUpload<Schema extends z.ZodType> {
  schema: Schema;
  path: string;
  body: (value: z.output<Schema>) => Promise<unknown>;
  done: string;
}

/** The loader of both TLS screens: the engine's state at `api`, the confirmation the page asks without JavaScript (`?confirm=`), and now. */
export async function loadTlsPage<T>(request: Request, api: string) {
  const admin = await requireAdmin(request);
  const reply = await admin.call<T>(api);
  if (!reply.result || !reply.data) throw new Response(reply.message, { status: 502 });
  const confirm = confirmSchema.parse(new URL(request.url).searchParams.get("confirm"));
  return data({ info: reply.data, confirm, now: Date.now() }, { headers: { "Set-Cookie": await admin.commit() } });
}

/**
 * The action of both TLS screens: a post of at most `limit` bytes is either a change that needs a
 * confirmation (`change` names it) or the upload. Uploaded: a redirect with its toast; refused
 * (the engine's 4029–4032, 4520–4522): the form's errors.
 */
export async function tlsPageAction<Schema extends z.ZodType>(request: Request, options: { page: string; limit: number; change: (form: FormData) => ConfirmedChange | null; upload: PemUpload<Schema> }) {
  const form = await readForm(request, { limit: options.limit });
  const admin = await requireAdmin(request);
  const init = { headers: { "Set-Cookie": await admin.commit() } };
  const change = options.change(form);
  if (change) return confirmedCall(request, admin, form, options.page, change, init);
  const answer = await uploadPem(request, admin, form, options.page, options.upload, init);
  return answer instanceof Response ? answer : data(answer, init);
}

async function uploadPem<Schema extends z.ZodType>(request: Request, admin: SignedIn, form: FormData, page: string, upload: PemUpload<Schema>, init: Headers) {
  const submission = parseFormData(form, upload.schema);
  if (submission.status !== "success") return { submission: submission.reply() };
  const body = await upload.body(submission.value);
  const reply = await admin.call(upload.path, { method: "PUT", body: JSON.stringify(body) });
  if (!reply.result) return { submission: submission.reply({ formErrors: [`error.${reply.code}`] }) };
  const t = await getT(request);
  return redirectWithToast(page, { type: "success", message: t(upload.done) }, init);
}

/**
 * A change that needs a confirmation (remove, non-TLS on/off): unconfirmed (a post without
 * JavaScript) it goes back to the page's question; confirmed it runs and comes back with a toast.
 */
async function confirmedCall(request: Request, admin: SignedIn, form: FormData, page: string, change: ConfirmedChange, init: Headers) {
  if (form.get("confirmed") !== "1") return redirect(`${page}?confirm=${change.ask}`, init);
  const reply = await admin.call(change.path, { method: change.method, ...(change.body === undefined ? {} : { body: JSON.stringify(change.body) }) });
  const t = await getT(request);
  return redirectWithToast(page, reply.result ? { type: "success", message: t(change.done) } : { type: "error", message: t(`error.${reply.code}`) }, init);
}
