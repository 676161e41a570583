import type { SiteInfo } from "../../contract/site";

/** The product name in the page's language (the site-info fields keep the original's names). */
export const productName = (site: Pick<SiteInfo, "raysyncZH" | "raysyncEN">, lang: string) => (lang === "zh" ? site.raysyncZH : site.raysyncEN);
