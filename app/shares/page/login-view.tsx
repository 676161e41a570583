import { getFormProps, useForm, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { Form, useNavigation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { Button } from "../../components/ui/button";
import { FormError } from "../../components/ui/form-error";
import { TextInput, useAnswerCount } from "../../components/ui/text-input";
import { shareLoginSchema } from "./login-schema";

/**
 * The login view (spec section 4): the link's password, a plain form posted to the route's action,
 * so it works without JavaScript. `refusal` is a message the loader met before any password could
 * help (the link is bound to another device): then there is no form, only a way to try again.
 * `confirm`: a link without password that binds the first device — one button, so the binding
 * happens on the visitor's POST, never on a GET (a mail scanner fetching the link binds nothing).
 */
export function LoginView({
  lastResult,
  refusal,
  retryHref,
  confirm = false,
}: {
  lastResult?: SubmissionResult<string[]> | null;
  refusal: string | null;
  retryHref: string;
  confirm?: boolean;
}) {
  const { t } = useTranslation();
  const navigation = useNavigation();
  const attempt = useAnswerCount(lastResult);
  const [form, fields] = useForm({
    lastResult,
    onValidate: ({ formData }) => parseWithZod(formData, { schema: shareLoginSchema }),
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
  });
  const busy = navigation.state !== "idle" && navigation.formMethod?.toLowerCase() === "post";
  return (
    <section aria-labelledby="share-login-title" className="mx-auto mt-8 w-full max-w-[420px] rounded-lg bg-white p-6 shadow sm:mt-16 sm:p-8">
      <h1 id="share-login-title" className="mb-2 text-lg font-semibold text-gray-900">
        {/* Only a view with the password field asks for the password: a refused visitor (bound elsewhere) has nothing to type. */}
        {t(refusal ? "share.refused.title" : confirm ? "share.confirm.title" : "share.login.title")}
      </h1>
      {refusal ? (
        <div className="flex flex-col gap-4">
          <FormError errors={[refusal]} />
          <a href={retryHref} className="self-start text-sm text-primary hover:underline">
            {t("share.login.retry")}
          </a>
        </div>
      ) : confirm ? (
        <>
          <p className="mb-6 text-sm text-gray-600">{t("share.confirm.intro")}</p>
          <Form method="post" className="flex flex-col gap-4">
            <input type="hidden" name="intent" value="open" />
            <Button type="submit" size="large" loading={busy}>
              {busy ? t("share.login.opening") : t("share.login.submit")}
            </Button>
          </Form>
        </>
      ) : (
        <>
          <p className="mb-6 text-sm text-gray-600">{t("share.login.intro")}</p>
          <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4">
            <input type="hidden" name="intent" value="login" />
            <TextInput
              key={`password-${attempt}`}
              label={t("share.login.password")}
              name={fields.password.name}
              type="password"
              autoComplete="off"
              error={fields.password.errors?.[0]}
            />
            <FormError id={form.errorId} errors={form.errors} />
            <Button type="submit" size="large" loading={busy}>
              {busy ? t("share.login.opening") : t("share.login.submit")}
            </Button>
          </Form>
        </>
      )}
    </section>
  );
}
