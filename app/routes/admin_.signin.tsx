import { type ActionFunctionArgs, type LoaderFunctionArgs, redirect } from "@remix-run/node";
import { Link } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { AdminAuthFrame } from "~/admin/shell/auth-frame";
import { signInAction } from "~/auth/authenticator.server";
import { ExpiredNotice, SignInForm } from "~/auth/signin-form";
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
 * gets 1031 Site Access Denied. A first sign-in (1074) goes to /admin/update-info. It returns to a
 * console page only: a user page is no place for the admin session.
 */
export const action = ({ request }: ActionFunctionArgs) => signInAction(request, "admin", "/admin", (target) => target === "/admin" || target.startsWith("/admin/"));

export default function AdminSignIn() {
  const { t } = useTranslation();
  return (
    <AdminAuthFrame>
      <h1 className="mb-6 text-xl font-semibold">{t("admin.signin.title")}</h1>
      <SignInForm action="/admin/signin" />
      <p className="mt-6 text-sm text-gray-600">
        <Link to="/signin" className="text-primary underline hover:no-underline">
          {t("admin.signin.user-page")}
        </Link>
      </p>
      <ExpiredNotice />
    </AdminAuthFrame>
  );
}
