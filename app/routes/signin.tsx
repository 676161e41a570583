import { type ActionFunctionArgs, type LoaderFunctionArgs, redirect } from "@remix-run/node";
import { useTranslation } from "react-i18next";
import { signInAction } from "~/auth/authenticator.server";
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

/** Login box positions 1–9: a 3 × 3 grid read left to right, top to bottom; 5 is the centre. */
const ROW = ["items-start", "items-center", "items-end"];
const COLUMN = ["justify-start", "justify-center", "justify-end"];

export default function SignIn() {
  const root = useRootData();
  const { t, i18n } = useTranslation();
  if (!root) return null;
  const { site } = root;
  const position = Math.min(9, Math.max(1, site.position)) - 1;
  const background = site.is_bg_change && site.background ? { backgroundImage: `url(${site.background})`, backgroundSize: "cover" } : {};

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
        <SignInForm action="/signin" />
      </main>
      <ExpiredNotice />
    </div>
  );
}
