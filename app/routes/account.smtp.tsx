import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from "@remix-run/node";
import { type SmtpSettingsInfo, smtpSettingsSchema } from "../../contract/mail";
import { parseFormData } from "~/components/ui/form";
import { SMTP_REQUIRED_ON_SERVER } from "~/components/shell/smtp-form";
import { getT } from "~/i18n/i18next.server";
import { smtpSaveBody, smtpFieldError } from "~/utils/smtp.server";
import { requireUser } from "~/utils/session.server";
import { readForm } from "~/utils/form.server";

/** GET: the caller's SMTP settings for the dialog (the engine never returns the password). */
export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const reply = await user.call<SmtpSettingsInfo>("/api/user/smtp/info");
  // 1008: the user's sender type is not their own account (docs/mail.md, "Whose account"); the menu does not offer the dialog then.
  if (reply.code === 1008) throw new Response(reply.message, { status: 403 });
  if (!reply.result || !reply.data) throw new Response(reply.message, { status: 502 });
  return data({ settings: reply.data }, { headers: { "Set-Cookie": await user.commit() } });
}

/**
 * The dialog reads the settings once per opening: a save must not reload them under the open form
 * (that would remount it and lose the save's result). The shell's loaders still revalidate.
 */
export const shouldRevalidate = () => false;

/** POST: saves them; the password goes to the engine credential-encoded, and never comes back in the reply. */
export async function action({ request }: ActionFunctionArgs) {
  const form = await readForm(request);
  const user = await requireUser(request);
  const t = await getT(request);
  const submission = parseFormData(form, smtpSettingsSchema, SMTP_REQUIRED_ON_SERVER);
  const hideFields = ["emailPassword"];
  if (submission.status !== "success") return data({ saved: false, result: submission.reply({ hideFields }) }, { status: 400 });
  const v = submission.value;
  const reply = await user.call<SmtpSettingsInfo>("/api/user/smtp/update", {
    method: "POST",
    body: smtpSaveBody(v),
  });
  if (!reply.result) {
    const refused = smtpFieldError(reply);
    if (refused) return data({ saved: false, result: submission.reply({ fieldErrors: { [refused.field]: [refused.message ?? t(`error.${reply.code}`)] }, hideFields }) }, { status: 400 });
    return data({ saved: false, result: submission.reply({ formErrors: [t(`error.${reply.code}`, { defaultValue: reply.message })], hideFields }) }, { status: 400 });
  }
  return data({ saved: true, result: submission.reply({ hideFields }) }, { headers: { "Set-Cookie": await user.commit() } });
}
