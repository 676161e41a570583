import { getFormProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { type ActionFunctionArgs, data, type LoaderFunctionArgs, redirect } from "@remix-run/node";
import { Form, useActionData, useNavigation, useSearchParams, useSubmit } from "@remix-run/react";
import { useRef } from "react";
import { useTranslation } from "react-i18next";
import { LanguageSwitch } from "~/components/language-switch";
import { Button } from "~/components/ui/button";
import { FormError } from "~/components/ui/form-error";
import { Modal } from "~/components/ui/modal";
import { TextInput, useAnswerCount } from "~/components/ui/text-input";
import { useRootData } from "~/root";
import { safeRedirect } from "~/utils/redirect";
import { keepSignIn, signIn as signInWith, SignInRefused } from "~/auth/authenticator.server";
import { getSession, readEngine } from "~/utils/session.server";
import { productName, productTitleMeta } from "~/utils/site";
import { signInSchema as schema } from "~/auth/signin-form";
import { readForm } from "~/utils/form.server";

/** The sign-in page debounces submission by 500 ms when JavaScript runs (spec section 9). */
export const SIGNIN_DEBOUNCE_MS = 500;

export const meta = productTitleMeta;

export async function loader({ request }: LoaderFunctionArgs) {
  const session = await getSession(request);
  if (readEngine(session)) throw redirect("/personal");
  return null;
}

export async function action({ request }: ActionFunctionArgs) {
  const form = await readForm(request);
  const submission = parseWithZod(form, { schema });
  if (submission.status !== "success") return data(submission.reply({ hideFields: ["password"] }), { status: 400 });
  // Decided before any token exists: an odd target falls back here, never fails after signing in.
  const target = safeRedirect(submission.value.redirectTo, "/personal");
  try {
    const result = await signInWith("user", request, submission.value);
    return await keepSignIn(request, result, "user", target);
  } catch (error) {
    if (error instanceof SignInRefused) return data(submission.reply({ formErrors: [error.message], hideFields: ["password"] }), { status: 400 });
    throw error;
  }
}

/** Login box positions 1–9: a 3 × 3 grid read left to right, top to bottom; 5 is the centre. */
const ROW = ["items-start", "items-center", "items-end"];
const COLUMN = ["justify-start", "justify-center", "justify-end"];

export default function SignIn() {
  const root = useRootData();
  const { t, i18n } = useTranslation();
  const lastResult = useActionData<typeof action>();
  const navigation = useNavigation();
  const submit = useSubmit();
  const [searchParams, setSearchParams] = useSearchParams();
  const pending = useRef<ReturnType<typeof setTimeout>>();
  const attempt = useAnswerCount(lastResult);
  const [form, fields] = useForm({
    lastResult,
    onValidate: ({ formData }) => parseWithZod(formData, { schema }),
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
  });
  if (!root) return null;
  const { site } = root;
  const position = Math.min(9, Math.max(1, site.position)) - 1;
  const background = site.is_bg_change && site.background ? { backgroundImage: `url(${site.background})`, backgroundSize: "cover" } : {};
  const busy = navigation.state !== "idle" && navigation.formAction === "/signin";

  return (
    <div className={`flex min-h-full px-4 pb-4 pt-16 sm:p-10 ${ROW[Math.floor(position / 3)]} ${COLUMN[position % 3]}`} style={{ backgroundColor: site.backgroundColor, ...background }}>
      <LanguageSwitch className="fixed right-6 top-4 rounded bg-white/90 shadow-sm" />
      <main className="w-full max-w-[400px] rounded-lg bg-white p-6 shadow-lg sm:p-8">
        {site.is_logo_change && site.logo ? (
          <img src={site.logo} alt={productName(site, i18n.language)} className="mb-4 h-10" />
        ) : (
          <div aria-hidden="true" className="mb-4 text-2xl font-bold text-primary">
            {productName(site, i18n.language)}
          </div>
        )}
        <h1 className="mb-6 text-xl font-semibold">{t("auth.signin.title", { product: productName(site, i18n.language) })}</h1>
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
      </main>
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
    </div>
  );
}
