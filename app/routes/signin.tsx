import { type ActionFunctionArgs, type LoaderFunctionArgs, redirect } from "@remix-run/node";
import { useTranslation } from "react-i18next";
import { signInAction } from "~/auth/authenticator.server";
import { SignInScene } from "~/auth/signin-scene";
import { ExpiredNotice, SignInForm } from "~/auth/signin-form";
import { LanguageSwitch } from "~/components/language-switch";
import { useRootData } from "~/root";
import { getSession, readEngine } from "~/utils/session.server";
import { productName, productTitleMeta } from "~/utils/site";

export const meta = productTitleMeta;

export async function loader({ request }: LoaderFunctionArgs) {
  const session = await getSession(request);
  if (readEngine(session)) throw redirect("/personal");
  return null;
}

/** remix-auth's `user` strategy (app/auth/authenticator.server.ts); a 1074 goes to /reset-password. */
export const action = ({ request }: ActionFunctionArgs) => signInAction(request, "user", "/personal");

export default function SignIn() {
  const root = useRootData();
  const { t, i18n } = useTranslation();
  if (!root) return null;
  return (
    <SignInScene
      site={root.site}
      lang={i18n.language}
      heading={t("auth.signin.title", { product: productName(root.site, i18n.language) })}
      top={<LanguageSwitch className="fixed right-6 top-4 rounded bg-white/90 shadow-sm" />}
    >
      <SignInForm action="/signin" />
      <ExpiredNotice />
    </SignInScene>
  );
}
