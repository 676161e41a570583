import { data, type LinksFunction, type LoaderFunctionArgs } from "@remix-run/node";
import { Links, Meta, Outlet, Scripts, ScrollRestoration, useLoaderData, useRevalidator, useRouteLoaderData } from "@remix-run/react";
import { type ReactNode, useEffect } from "react";
import { useTranslation } from "react-i18next";
import { StaticToast, ToastProvider, useToast } from "~/components/ui/toast";
import stylesheet from "~/tailwind.css";
import { getLanguage } from "./i18n/i18next.server";
import { env } from "./utils/env.server";
import { loadSite } from "./utils/site.server";
import { readablePrimary } from "./utils/contrast";
import { useHydrated } from "./utils/use-hydrated";
import { runtimeTimeZone, timeZoneCookie, timeZoneOfCookieHeader } from "./utils/time-zone";
import { takeToast } from "./utils/toast.server";
import { keepAfterShutdown } from "~/utils/revalidate";

export const links: LinksFunction = () => [
  { rel: "stylesheet", href: stylesheet },
  { rel: "icon", href: "/favicon.svg", type: "image/svg+xml" },
];

export const shouldRevalidate = keepAfterShutdown;

export async function loader({ request }: LoaderFunctionArgs) {
  const [lang, { site, online }, { toast, setCookie }] = await Promise.all([getLanguage(request), loadSite(request), takeToast(request)]);
  return data(
    { lang, englishOnly: env.englishOnly, site, engineOnline: online, toast, timeZone: timeZoneOfCookieHeader(request.headers.get("Cookie")) },
    { headers: setCookie ? { "Set-Cookie": setCookie } : undefined },
  );
}

export type RootData = Awaited<ReturnType<typeof loader>>["data"];
export const useRootData = () => useRouteLoaderData<typeof loader>("root");

export function Layout({ children }: { children: ReactNode }) {
  const root = useRouteLoaderData<typeof loader>("root");
  const { i18n } = useTranslation();
  // Without root data (an error the root boundary shows) the page keeps the request's language,
  // which the server rendered in and the browser reads back from <html lang>.
  const lang = root?.lang ?? (i18n.language === "zh" ? "zh" : "en");
  useEffect(() => {
    // Effects run once React has hydrated: from here on, forms and buttons are the enhanced ones.
    // Here in the layout, so that an error page says so too.
    document.documentElement.dataset.hydrated = "true";
  }, []);
  // Text and buttons use the nearest shade of the brand colour that is readable on the page.
  const primary = readablePrimary(root?.site.primaryColor ?? "#FD5C1F");
  return (
    <html lang={lang} className="h-full">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <Meta />
        <Links />
        {/* The site design's icon (enterprise); otherwise the browser's default. */}
        {root?.site.is_icon_change && root.site.ico ? <link rel="icon" href={root.site.ico} /> : null}
      </head>
      <body className="h-full bg-[#F7F7F7] text-gray-900 antialiased" style={{ ["--color-primary" as string]: primary }}>
        {children}
        <ScrollRestoration />
        <Scripts />
      </body>
    </html>
  );
}

/** Shows the toast a redirect left in the flash cookie: in the HTML until JavaScript runs, then as a timed toast. */
function FlashToast() {
  const { toast } = useLoaderData<typeof loader>();
  const show = useToast();
  const hydrated = useHydrated();
  useEffect(() => {
    if (toast && hydrated) show[toast.type](toast.message);
  }, [toast, show, hydrated]);
  return toast && !hydrated ? <StaticToast type={toast.type} message={toast.message} /> : null;
}

/**
 * Tells the server the reader's time zone (utils/time-zone.ts) when it rendered in another one, and
 * loads the page's data again, so times and date filters follow the reader from then on.
 */
function TimeZoneSync() {
  const { timeZone } = useLoaderData<typeof loader>();
  const { revalidate } = useRevalidator();
  useEffect(() => {
    const own = runtimeTimeZone();
    if (own === timeZone) return;
    document.cookie = timeZoneCookie(own);
    revalidate();
  }, [timeZone, revalidate]);
  return null;
}

export default function App() {
  const { lang } = useLoaderData<typeof loader>();
  const { i18n } = useTranslation();
  useEffect(() => {
    if (i18n.language !== lang) void i18n.changeLanguage(lang);
    try {
      localStorage.setItem("ferry_lang", lang);
    } catch {
      // no storage: the cookie still carries the choice
    }
  }, [lang, i18n]);
  return (
    <ToastProvider>
      <FlashToast />
      <TimeZoneSync />
      <Outlet />
    </ToastProvider>
  );
}

/** Every route's error page is the one boundary component (components/error-boundary.tsx). */
export { GeneralErrorBoundary as ErrorBoundary } from "~/components/error-boundary";
