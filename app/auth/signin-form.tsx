import { getFormProps, type SubmissionResult, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { Form, useActionData, useNavigation, useSearchParams, useSubmit } from "@remix-run/react";
import { useRef } from "react";
import { useTranslation } from "react-i18next";
import * as z from "zod";
import { typedPassword } from "~/components/new-password-fields";
import { Button } from "~/components/ui/button";
import { FormError } from "~/components/ui/form-error";
import { Modal } from "~/components/ui/modal";
import { TextInput, useAnswerCount } from "~/components/ui/text-input";
import { accountLookupBody } from "../../contract/auth";

/**
 * The sign-in form of /signin and /admin/signin. Every field is bounded before anything is encoded
 * or sent: the account field takes an account or an e-mail address, so the e-mail's bound (the
 * account lookup's, contract/auth.ts) is the longest.
 */
export const signInSchema = z.object({
  account: z
    .string({ error: "auth.account.required" })
    .trim()
    .min(1, "auth.account.required")
    .max(accountLookupBody.shape.email.maxLength ?? 255, "auth.account.too-long"),
  password: typedPassword,
  redirectTo: z.string().optional(),
});

/** The sign-in page debounces submission by 500 ms when JavaScript runs (spec section 9). */
export const SIGNIN_DEBOUNCE_MS = 500;

/**
 * Account, password, the page to come back to (`?redirectTo=`), the refusal and the button, posted
 * to `action` (the route's own address). Works as a plain form without JavaScript.
 */
export function SignInForm({ action }: { action: string }) {
  const { t } = useTranslation();
  const lastResult = useActionData<SubmissionResult<string[]>>();
  const navigation = useNavigation();
  const submit = useSubmit();
  const [searchParams] = useSearchParams();
  const pending = useRef<ReturnType<typeof setTimeout>>();
  const attempt = useAnswerCount(lastResult);
  const [form, fields] = useForm({
    lastResult,
    onValidate: ({ formData }) => parseWithZod(formData, { schema: signInSchema }),
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
  });
  const busy = navigation.state !== "idle" && navigation.formAction === action;
  return (
    <Form
      method="post"
      {...getFormProps(form)}
      onSubmit={(event) => {
        form.onSubmit(event);
        if (event.defaultPrevented) return;
        // With JavaScript, a burst of submits sends one request, 500 ms after the last.
        event.preventDefault();
        const target = event.currentTarget;
        clearTimeout(pending.current);
        pending.current = setTimeout(() => submit(target, { method: "post" }), SIGNIN_DEBOUNCE_MS);
      }}
      className="flex flex-col gap-4"
    >
      <input type="hidden" name="redirectTo" value={searchParams.get("redirectTo") ?? ""} />
      <TextInput label={t("auth.account")} name={fields.account.name} defaultValue={fields.account.initialValue} autoComplete="username" error={fields.account.errors?.[0]} />
      <TextInput key={`password-${attempt}`} label={t("auth.password")} name={fields.password.name} type="password" autoComplete="current-password" error={fields.password.errors?.[0]} />
      <FormError id={form.errorId} errors={form.errors} />
      <Button type="submit" size="large" loading={busy}>
        {busy ? t("auth.signin.signing-in") : t("auth.signin.submit")}
      </Button>
    </Form>
  );
}

/**
 * The logout notice a sign-in page shows at `?reason=expired` (session ended). Its one button, the ×
 * and Escape all do the same: leave the notice for the sign-in form under it (issue 13, item 2: no
 * dialog ignores Escape). A click beside it does not, so it is not missed.
 */
export function ExpiredNotice() {
  const { t } = useTranslation();
  const [searchParams, setSearchParams] = useSearchParams();
  return (
    <Modal
      open={searchParams.get("reason") === "expired"}
      onClose={() => setSearchParams({}, { replace: true })}
      // What opened it was the last page, so focus goes to what comes next: the account field.
      afterClose={() => requestAnimationFrame(() => document.querySelector<HTMLInputElement>('form input[name="account"]')?.focus())}
      title={t("global.modal.logout.title")}
      okOnly
      confirmLabel={t("global.ok")}
      closeOnBackdrop={false}
    >
      {t("global.modal.logout")}
    </Modal>
  );
}
