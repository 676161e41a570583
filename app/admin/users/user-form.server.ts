import type { StorageChoice } from "../../../contract/storage";
import { data } from "@remix-run/node";
import * as z from "zod";
import { parseFormData } from "~/components/ui/form";
import { readStepMove } from "~/components/ui/steps";
import { getT } from "~/i18n/i18next.server";
import { readForm } from "~/utils/form.server";
import type { SignedIn } from "~/utils/session.server";
import { redirectWithToast } from "~/utils/toast.server";
import type { AdminUser } from "../../../contract/admin";
import { createBodyOf, fieldOfCode, settingsOf, STEP_KEYS, stepOfField, userFormSchema, type UserFormMode, type UserFormValue } from "./user-form";

const LAST = STEP_KEYS.length - 1;

/**
 * One post of the 4-step user form: Back and Next answer with the step to show (Next only once the
 * steps behind it are valid); Skip and the last step's button check everything and save. An error,
 * the form's or the engine's, comes back on its field, at the step that holds it.
 */
export async function userFormAction(request: Request, admin: SignedIn, mode: UserFormMode, user: AdminUser | null) {
  const form = await readForm(request);
  const current = Math.min(LAST, Math.max(0, Math.trunc(Number(form.get("current"))) || 0));
  const headers = { "Set-Cookie": await admin.commit() };
  const answer = (result: ReturnType<ReturnType<typeof parseFormData>["reply"]>, step: number, status = 200) => data({ result, step }, { status, headers });
  const move = readStepMove(form);
  // A row added or removed (conform's list buttons, posted when the page has no script): same step.
  if (form.has("__intent__")) return answer(parseFormData(form, userFormSchema(mode)).reply(), current);
  if (move === "back") return answer(parseFormData(form, z.object({})).reply(), Math.max(0, current - 1));
  const upTo = move === "next" ? current : LAST;
  const submission = parseFormData(form, userFormSchema(mode, upTo));
  if (submission.status !== "success") {
    const first = Object.keys(submission.error ?? {}).find((name) => (submission.error?.[name]?.length ?? 0) > 0) ?? "";
    return answer(submission.reply(), Math.min(current, stepOfField(first)), 400);
  }
  if (move === "next") return answer(submission.reply(), current + 1);

  const value = submission.value as UserFormValue;
  const reply =
    mode === "create"
      ? await admin.call<AdminUser>("/api/admin/users", { method: "POST", body: JSON.stringify(createBodyOf(value)) })
      : await admin.call<AdminUser>(`/api/admin/users/${user!.id}`, { method: "PATCH", body: JSON.stringify(settingsOf(value)) });
  let refused: { code: number; message: string } | null = reply.result ? null : reply;
  if (!refused && mode === "edit" && value.password) {
    const reset = await admin.call(`/api/admin/users/${user!.id}/password`, { method: "PUT", body: JSON.stringify({ password: value.password, needUpdatePwd: value.needUpdatePwd === true }) });
    if (!reset.result) refused = reset;
  }
  if (refused) {
    const name = fieldOfCode(refused.code);
    const text = refused.message || `error.${refused.code}`;
    const result = submission.reply(name ? { fieldErrors: { [name]: [text] } } : { formErrors: [text] });
    return answer(result, name ? stepOfField(name) : current, 400);
  }
  const t = await getT(request);
  const account = mode === "create" ? (value.account ?? "") : user!.account;
  return redirectWithToast("/admin/users", { type: "success", message: t(mode === "create" ? "admin.users.done.create" : "admin.users.done.update", { account }) }, { headers });
}

/** The storages the form offers for a home and each virtual directory; none when the engine does not answer (the engine then uses the default). */
export async function storageChoices(admin: SignedIn): Promise<StorageChoice[]> {
  const reply = await admin.call<StorageChoice[]>("/api/admin/storages/choices");
  return reply.result && reply.data ? reply.data : [];
}
