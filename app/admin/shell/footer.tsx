import { useTranslation } from "react-i18next";
import type { SiteInfo } from "../../../contract/site";
import { productName, webLinkHref } from "~/utils/site";

/** The console's footer (spec): copyright with the company link (site settings' branding) and the version. */
export function AdminFooter({ site, version }: { site: SiteInfo; version: string }) {
  const { t, i18n } = useTranslation();
  const product = productName(site, i18n.language);
  // Only an http: or https: address becomes a link; anything else shows the name alone.
  const company = webLinkHref(i18n.language === "zh" ? site.companyLink : site.companyLinkEN || site.companyLink);
  return (
    <footer className="flex h-10 shrink-0 items-center justify-center gap-3 border-t border-gray-200 bg-white text-xs text-gray-600">
      <span>
        {t("admin.footer.copyright", { year: new Date().getFullYear() })}{" "}
        {company ? (
          <a href={company} target="_blank" rel="noopener noreferrer" className="text-primary underline hover:no-underline">
            {product}
          </a>
        ) : (
          product
        )}
      </span>
      <span aria-hidden="true">·</span>
      <span>{t("admin.footer.version", { version })}</span>
    </footer>
  );
}
