import type { MetaFunction } from "@remix-run/node";
import { isLaunchScheme, isWebLink } from "../../contract/settings";
import type { SiteInfo } from "../../contract/site";

/** The product name in the page's language (the site-info fields keep the original's names). */
export const productName = (site: Pick<SiteInfo, "raysyncZH" | "raysyncEN">, lang: string) => (lang === "zh" ? site.raysyncZH : site.raysyncEN);

/** The page title: the product name from the root loader's site info, in the page's language. */
export const productTitleMeta: MetaFunction = ({ matches }) => {
  const root = matches.find((m) => m.id === "root")?.data as { site?: SiteInfo; lang?: string } | undefined;
  return [{ title: root?.site ? productName(root.site, root.lang ?? "en") : "Ferry" }];
};

/**
 * A branding link an administrator typed (company link, official site), as an href: only an
 * absolute http: or https: URL (contract/settings.ts, isWebLink); anything else (javascript:, data:,
 * a relative path) gives null and is not rendered as a link.
 */
export function webLinkHref(link: string | null | undefined): string | null {
  return typeof link === "string" && isWebLink(link) ? link : null;
}

/**
 * The desktop client's launch URL (spec section 7): `<urlName>://start?secure=…&host=…&certSelect=…`,
 * or null when urlName is not a custom scheme name (contract/settings.ts, isLaunchScheme), so that
 * nothing but the client's own scheme handler can ever be started by it.
 */
export function launchUrl(urlName: string, page: { secure: boolean; hostname: string; certSelect: number }): string | null {
  if (!isLaunchScheme(urlName)) return null;
  const query = new URLSearchParams({ secure: page.secure ? "1" : "0", host: page.hostname, certSelect: String(Math.trunc(page.certSelect) || 0) });
  return `${urlName.toLowerCase()}://start?${query.toString()}`;
}
