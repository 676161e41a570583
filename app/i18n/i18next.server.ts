import { createCookie } from "@remix-run/node";
import { RemixI18Next } from "remix-i18next/server";
import { langFromHeader } from "../../contract/envelope";
import { env } from "../utils/env.server";
import { i18nConfig } from "./config";
import type { Language } from "./resources";

/** The language choice: a cookie, so the server renders in it (the browser mirrors it to localStorage). */
export const languageCookie = createCookie("ferry_lang", { path: "/", sameSite: "lax", maxAge: 365 * 24 * 3600 });

const i18next = new RemixI18Next({
  detection: {
    supportedLanguages: [...i18nConfig.supportedLngs],
    fallbackLanguage: "en",
    cookie: languageCookie,
    order: ["cookie", "custom"],
    // Without a choice, a browser language other than Chinese gives English (spec section 1).
    findLocale: async (request) => langFromHeader(request.headers.get("Accept-Language") ?? undefined),
  },
  i18next: i18nConfig,
});

export async function getLanguage(request: Request): Promise<Language> {
  if (env.englishOnly) return "en";
  return (await i18next.getLocale(request)) === "zh" ? "zh" : "en";
}

/** A translator for actions and meta, in the request's language. */
export async function getT(request: Request) {
  return i18next.getFixedT(await getLanguage(request));
}
