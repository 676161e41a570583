import { getFormProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { type ActionFunctionArgs, data, type LoaderFunctionArgs, redirect } from "@remix-run/node";
import { Form, Link, useActionData, useNavigation, useSearchParams } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { AdminAuthFrame } from "~/admin/shell/auth-frame";
import { keepSignIn, signIn, SignInRefused } from "~/auth/authenticator.server";
import { signInSchema as schema } from "~/auth/signin-form";
import { Button } from "~/components/ui/button";
import { FormError } from "~/components/ui/form-error";
import { Modal } from "~/components/ui/modal";
import { TextInput, useAnswerCount } from "~/components/ui/text-input";
import { readForm } from "~/utils/form.server";
import { safeRedirect } from "~/utils/redirect";
import { getSession, readEngine } from "~/utils/session.server";
import { productTitleMeta } from "~/utils/site";

export const meta = productTitleMeta;

/** The administrator already signed in to the console goes on to it. */
export async function loader({ request }: LoaderFunctionArgs) {
  if (readEngine(await getSession(request, "admin"))) throw redirect("/admin");
  return null;
}

/**
 * The console's sign-in (remix-auth's `admin` strategy): only the administrator gets in; anyone else
 * gets 1031 Site Access Denied. A first sign-in (1074) goes to /admin/update-info.
 */
export async function action({ request }: ActionFunctionArgs) {
  const form = await readForm(request);
  const submission = parseWithZod(form, { schema });
  if (submission.status !== "success") return data(submission.reply({ hideFields: ["password"] }), { status: 400 });
  // Back to a console page only: a user page is no place for the admin session.
  const back = safeRedirect(submission.value.redirectTo, "/admin");
  const target = back === "/admin" || back.startsWith("/admin/") ? back : "/admin";
  try {
    return await keepSignIn(request, await signIn("admin", request, submission.value), "admin", target);
  } catch (error) {
    if (error instanceof SignInRefused) return data(submission.reply({ formErrors: [error.message], hideFields: ["password"] }), { status: 400 });
    throw error;
  }
}

export default function AdminSignIn() {
  const { t } = useTranslation();
  const lastResult = useActionData<typeof action>();
  const navigation = useNavigation();
  const [searchParams, setSearchParams] = useSearchParams();
  const attempt = useAnswerCount(lastResult);
  const [form, fields] = useForm({
    lastResult,
    onValidate: ({ formData }) => parseWithZod(formData, { schema }),
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
  });
  const busy = navigation.state !== "idle" && navigation.formAction === "/admin/signin";
  return (
    <AdminAuthFrame>
      <h1 className="mb-6 text-xl font-semibold">{t("admin.signin.title")}</h1>
      <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4">
        <input type="hidden" name="redirectTo" value={searchParams.get("redirectTo") ?? ""} />
        <TextInput label={t("auth.account")} name={fields.account.name} defaultValue={fields.account.initialValue} autoComplete="username" error={fields.account.errors?.[0]} />
        <TextInput key={`password-${attempt}`} label={t("auth.password")} name={fields.password.name} type="password" autoComplete="current-password" error={fields.password.errors?.[0]} />
        <FormError id={form.errorId} errors={form.errors} />
        <Button type="submit" size="large" loading={busy}>
          {busy ? t("auth.signin.signing-in") : t("auth.signin.submit")}
        </Button>
      </Form>
      <p className="mt-6 text-sm text-gray-600">
        <Link to="/signin" className="text-primary underline hover:no-underline">
          {t("admin.signin.user-page")}
        </Link>
      </p>
      <Modal
        open={searchParams.get("reason") === "expired"}
        onClose={() => setSearchParams({}, { replace: true })}
        title={t("global.modal.logout.title")}
        okOnly
        confirmLabel={t("global.ok")}
        closable={false}
      >
        {t("global.modal.logout")}
      </Modal>
    </AdminAuthFrame>
  );
}
