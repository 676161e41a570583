import type { MetaFunction } from "@remix-run/node";
import type { SiteInfo } from "../../contract/site";

/** The product name in the page's language (the site-info fields keep the original's names). */
export const productName = (site: Pick<SiteInfo, "raysyncZH" | "raysyncEN">, lang: string) => (lang === "zh" ? site.raysyncZH : site.raysyncEN);

/** The page title: the product name from the root loader's site info, in the page's language. */
export const productTitleMeta: MetaFunction = ({ matches }) => {
  const root = matches.find((m) => m.id === "root")?.data as { site?: SiteInfo; lang?: string } | undefined;
  return [{ title: root?.site ? productName(root.site, root.lang ?? "en") : "Ferry" }];
};
