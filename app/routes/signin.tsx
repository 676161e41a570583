import { getFormProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { type ActionFunctionArgs, data, type LoaderFunctionArgs, redirect } from "@remix-run/node";
import { Form, useActionData, useNavigation, useSearchParams, useSubmit } from "@remix-run/react";
import { useRef } from "react";
import { useTranslation } from "react-i18next";
import * as z from "zod";
import { LanguageSwitch } from "~/components/language-switch";
import { typedPassword } from "~/components/new-password-fields";
import { Button } from "~/components/ui/button";
import { FormError } from "~/components/ui/form-error";
import { Modal } from "~/components/ui/modal";
import { TextInput, useAnswerCount } from "~/components/ui/text-input";
import { getT } from "~/i18n/i18next.server";
import { useRootData } from "~/root";
import { codec } from "~/utils/credentials.server";
import { engineFetch, EngineError } from "~/utils/engine.server";
import { safeRedirect } from "~/utils/redirect";
import { commitSession, getSession, readEngine, setPendingReset, startSession, type EngineSession } from "~/utils/session.server";
import { productName, productTitleMeta } from "~/utils/site";
import { accountLookupBody, lockedData } from "../../contract/auth";
import { ErrorCode } from "../../contract/errors";
import { EMAIL_PATTERN } from "../../contract/validation";
import { readForm } from "~/utils/form.server";

/**
 * Every field is bounded before anything is encoded or sent: the account field takes an account or
 * an e-mail address, so the e-mail's bound (the account lookup's, contract/auth.ts) is the longest.
 */
const schema = z.object({
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

export const meta = productTitleMeta;

export async function loader({ request }: LoaderFunctionArgs) {
  const session = await getSession(request);
  if (readEngine(session)) throw redirect("/personal");
  return null;
}

interface LoginData extends Omit<EngineSession, "refreshToken" | "socketToken"> {
  refresh_token: string;
  websocket_token: string;
}

export async function action({ request }: ActionFunctionArgs) {
  const form = await readForm(request);
  const t = await getT(request);
  const submission = parseWithZod(form, { schema });
  if (submission.status !== "success") return data(submission.reply({ hideFields: ["password"] }), { status: 400 });
  const { password } = submission.value;
  // Decided before any token exists: an odd target falls back here, never fails after signing in.
  const target = safeRedirect(submission.value.redirectTo, "/personal");
  let { account } = submission.value;
  const refuse = (message: string) => data(submission.reply({ formErrors: [message], hideFields: ["password"] }), { status: 400 });

  try {
    // An e-mail address is first resolved to its account (spec section 5).
    if (EMAIL_PATTERN.test(account)) {
      const lookup = await engineFetch<{ result: number; account: string }>("/api/user/account/lookup", {
        method: "POST",
        request,
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ action: "get_account", email: account }),
      });
      if (!lookup.result || lookup.data?.result !== 0) return refuse(t(`error.${lookup.code}`));
      account = lookup.data.account;
    }
    const reply = await engineFetch<LoginData & { loginFailTimes: number; lockPeriod: number; maxLockTimes: number }>("/api/user/login", {
      method: "POST",
      request,
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ UK: codec.encodeUK(account, password) }),
    });
    const session = await getSession(request);
    if (reply.code === 200 && reply.data) {
      const { token, refresh_token, websocket_token, userId, accountType, isAdmin } = reply.data;
      startSession(session, { token, refreshToken: refresh_token, socketToken: websocket_token, account: reply.data.account, userId, accountType, isAdmin });
      return redirect(target, { headers: { "Set-Cookie": await commitSession(request, session) } });
    }
    if (reply.code === 1074) {
      // The account and the old password travel to /reset-password sealed in the session, never in the URL.
      setPendingReset(session, { account, oldPassword: password });
      return redirect("/reset-password", { headers: { "Set-Cookie": await commitSession(request, session) } });
    }
    if (reply.code === 1005 && reply.data) {
      const { loginFailTimes, maxLockTimes, lockPeriod } = reply.data as unknown as { loginFailTimes: number; maxLockTimes: number; lockPeriod: number };
      return refuse(t("error.1005", { wrongTimes: loginFailTimes, maxLockTimes, lockPeriod: Math.round(lockPeriod / 60) }));
    }
    // A lock that ends by itself says when: the minutes left, rounded up (an administrator's lock has no data).
    const lock = (reply.code === ErrorCode.AccountLocked || reply.code === ErrorCode.IpLocked) && lockedData.safeParse(reply.data);
    if (lock && lock.success) {
      const count = Math.ceil(lock.data.retryAfter / 60);
      return refuse(t(reply.code === ErrorCode.AccountLocked ? "auth.locked.account" : "auth.locked.address", { count }));
    }
    return refuse(t(`error.${reply.code}`, { defaultValue: reply.message }));
  } catch (error) {
    if (error instanceof EngineError) return refuse(t("global.server.error"));
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
