import { type ActionFunctionArgs, redirect } from "@remix-run/node";
import { languageCookie } from "~/i18n/i18next.server";
import { env } from "~/utils/env.server";
import { safeRedirect } from "~/utils/redirect";
import { readForm } from "~/utils/form.server";

/** The language switch: a plain form post (works without JavaScript) that stores the choice in a cookie. */
export async function action({ request }: ActionFunctionArgs) {
  const form = await readForm(request);
  const back = safeRedirect(form.get("redirectTo"), "/signin");
  const lang = form.get("lang");
  if (env.englishOnly || (lang !== "en" && lang !== "zh")) return redirect(back);
  return redirect(back, { headers: { "Set-Cookie": await languageCookie.serialize(lang) } });
}

export const loader = () => redirect("/signin");
