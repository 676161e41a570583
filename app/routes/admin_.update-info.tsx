import { getFormProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import * as z from "zod";
import { AdminAuthFrame } from "~/admin/shell/auth-frame";
import { changePassword } from "~/auth/password.server";
import { changePasswordSchema, checkNewPassword, NewPasswordFields, newPasswordShape } from "~/components/new-password-fields";
import { Button } from "~/components/ui/button";
import { FormError } from "~/components/ui/form-error";
import { TextInput } from "~/components/ui/text-input";
import { readForm } from "~/utils/form.server";
import { commitSession, destroySession, getSession, readPendingReset, requireAdmin } from "~/utils/session.server";
import { productTitleMeta } from "~/utils/site";
import { redirectWithToast } from "~/utils/toast.server";

export const meta = productTitleMeta;

const resetSchema = z.object(newPasswordShape).superRefine(checkNewPassword);
const hideFields = ["oldPassword", "newPassword", "confirmPassword"];

/**
 * /admin/update-info (the spec's one known console address): the administrator's password. After a
 * first sign-in (1074) it is the forced reset, new password only (the old one waits sealed in the
 * admin session); for the signed-in administrator it is the account settings: old, new, confirm.
 * Either way the engine ends every session of the account, and the administrator signs in again.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const pending = readPendingReset(await getSession(request, "admin"));
  if (pending) return { mode: "reset" as const, account: pending.account };
  const admin = await requireAdmin(request);
  return data({ mode: "change" as const, account: admin.engine.account }, { headers: { "Set-Cookie": await admin.commit() } });
}

export async function action({ request }: ActionFunctionArgs) {
  const form = await readForm(request);
  const session = await getSession(request, "admin");
  const pending = readPendingReset(session);
  if (pending) {
    const submission = parseWithZod(form, { schema: resetSchema });
    if (submission.status !== "success") return data(submission.reply({ hideFields }), { status: 400 });
    const refused = await changePassword(request, { account: pending.account, oldPassword: pending.oldPassword, newPassword: submission.value.newPassword });
    if (refused) return data(submission.reply({ formErrors: [refused], hideFields }), { status: 400 });
    session.unset("reset");
    return redirectWithToast("/admin/signin", { type: "success", message: "auth.reset.success" }, { headers: { "Set-Cookie": await commitSession(request, session, "admin") } });
  }
  const admin = await requireAdmin(request);
  const submission = parseWithZod(form, { schema: changePasswordSchema });
  if (submission.status !== "success") return data(submission.reply({ hideFields }), { status: 400 });
  const refused = await changePassword(request, { account: admin.engine.account, ...submission.value }, admin);
  if (refused) return data(submission.reply({ formErrors: [refused], hideFields }), { status: 400 });
  return redirectWithToast("/admin/signin", { type: "success", message: "admin.account.success" }, { headers: { "Set-Cookie": await destroySession(request, admin.session, "admin") } });
}

export default function AdminUpdateInfo() {
  const { mode } = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  return (
    <AdminAuthFrame>
      <h1 className="mb-2 text-xl font-semibold">{t(mode === "reset" ? "auth.reset.title" : "admin.account.title")}</h1>
      <p className="mb-6 text-sm text-gray-600">{t(mode === "reset" ? "auth.reset.hint" : "admin.account.change")}</p>
      {mode === "reset" ? <ResetForm /> : <ChangeForm />}
    </AdminAuthFrame>
  );
}

/** Conform's options of both forms; each passes its own schema's validation. */
const formOptions = { shouldValidate: "onBlur", shouldRevalidate: "onInput" } as const;

function Submit({ errorId, errors }: { errorId: string; errors: string[] | undefined }) {
  const { t } = useTranslation();
  const navigation = useNavigation();
  return (
    <>
      <FormError id={errorId} errors={errors} />
      <Button type="submit" size="large" loading={navigation.state !== "idle"}>
        {t("global.confirm")}
      </Button>
    </>
  );
}

/** The first sign-in's forced reset: new password and confirmation. */
function ResetForm() {
  const [form, fields] = useForm({ ...formOptions, lastResult: useActionData<typeof action>(), onValidate: ({ formData }) => parseWithZod(formData, { schema: resetSchema }) });
  return (
    <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4">
      <NewPasswordFields fields={fields} />
      <Submit errorId={form.errorId} errors={form.errors} />
    </Form>
  );
}

/** Account settings: old, new and confirm password (spec), then back to the console by a link. */
function ChangeForm() {
  const { t } = useTranslation();
  const [form, fields] = useForm({ ...formOptions, lastResult: useActionData<typeof action>(), onValidate: ({ formData }) => parseWithZod(formData, { schema: changePasswordSchema }) });
  return (
    <>
      <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4">
        <TextInput label={t("auth.password.old")} name={fields.oldPassword.name} type="password" autoComplete="current-password" error={fields.oldPassword.errors?.[0]} />
        <NewPasswordFields fields={fields} />
        <Submit errorId={form.errorId} errors={form.errors} />
      </Form>
      <p className="mt-6 text-sm">
        <Link to="/admin" className="text-primary underline hover:no-underline">
          {t("admin.account.back")}
        </Link>
      </p>
    </>
  );
}
