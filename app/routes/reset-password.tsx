import { getFormProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { type ActionFunctionArgs, data, type LoaderFunctionArgs, redirect } from "@remix-run/node";
import { Form, useActionData, useNavigation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import * as z from "zod";
import { changePassword } from "~/auth/password.server";
import { LanguageSwitch } from "~/components/language-switch";
import { checkNewPassword, NewPasswordFields, newPasswordShape } from "~/components/new-password-fields";
import { Button } from "~/components/ui/button";
import { FormError } from "~/components/ui/form-error";
import { commitSession, getSession, readPendingReset } from "~/utils/session.server";
import { redirectWithToast } from "~/utils/toast.server";
import { readForm } from "~/utils/form.server";

const schema = z.object(newPasswordShape).superRefine(checkNewPassword);

/** Reached only from a 1074 answer at sign-in: the account and old password wait, sealed, in the session. */
export async function loader({ request }: LoaderFunctionArgs) {
  const pending = readPendingReset(await getSession(request));
  if (!pending) throw redirect("/signin");
  return { account: pending.account };
}

export async function action({ request }: ActionFunctionArgs) {
  const form = await readForm(request);
  const session = await getSession(request);
  const pending = readPendingReset(session);
  if (!pending) throw redirect("/signin");
  const submission = parseWithZod(form, { schema });
  const hideFields = ["newPassword", "confirmPassword"];
  if (submission.status !== "success") return data(submission.reply({ hideFields }), { status: 400 });
  const refused = await changePassword(request, { account: pending.account, oldPassword: pending.oldPassword, newPassword: submission.value.newPassword });
  if (refused) return data(submission.reply({ formErrors: [refused], hideFields }), { status: 400 });
  session.unset("reset");
  return redirectWithToast("/signin", { type: "success", message: "auth.reset.success" }, { headers: { "Set-Cookie": await commitSession(request, session) } });
}

export default function ResetPassword() {
  const { t } = useTranslation();
  const lastResult = useActionData<typeof action>();
  const navigation = useNavigation();
  const [form, fields] = useForm({
    lastResult,
    onValidate: ({ formData }) => parseWithZod(formData, { schema }),
    shouldValidate: "onBlur",
    shouldRevalidate: "onInput",
  });
  return (
    <div className="flex min-h-full items-center justify-center bg-[#F7F7F7] p-10">
      <LanguageSwitch className="fixed right-6 top-4 rounded bg-white/90 shadow-sm" />
      <main className="w-[420px] rounded-lg bg-white p-8 shadow-lg">
        <h1 className="mb-2 text-xl font-semibold">{t("auth.reset.title")}</h1>
        <p className="mb-6 text-sm text-gray-600">{t("auth.reset.hint")}</p>
        <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4">
          <NewPasswordFields fields={fields} />
          <FormError id={form.errorId} errors={form.errors} />
          <Button type="submit" size="large" loading={navigation.state !== "idle"}>
            {t("global.confirm")}
          </Button>
        </Form>
      </main>
    </div>
  );
}
