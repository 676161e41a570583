import { useTranslation } from "react-i18next";
import { LanguageSwitch } from "../../components/language-switch";
import { TransferIcon } from "../../components/ui/icons";
import { openTransferPanel } from "../../transfers/transfer-panel";
import type { SiteInfo } from "../../../contract/site";
import { productName, webLinkHref } from "../../utils/site";

const barButton =
  "flex h-8 items-center gap-1 rounded px-2 text-sm text-gray-700 hover:bg-gray-100 hover:text-primary focus-visible:outline focus-visible:outline-2 focus-visible:outline-primary";

/**
 * The top bar in share mode (spec section 2): logo, the share text, an about-us link to the company
 * site, the transfer list (disk view with JavaScript) and the language switch (not in the English
 * edition). No bell, no account menu, no download menu: a visitor has no account here.
 */
export function ShareTopBar({ site, shareText, showTransfers }: { site: SiteInfo; shareText: string | null; showTransfers: boolean }) {
  const { t, i18n } = useTranslation();
  const product = productName(site, i18n.language);
  // Only an http: or https: address becomes the about-us link; anything else is not shown at all.
  const company = webLinkHref(i18n.language === "zh" ? site.companyLink : site.companyLinkEN || site.companyLink);
  return (
    <header className="flex h-[50px] shrink-0 items-center justify-between gap-4 border-b border-gray-200 bg-white px-4">
      <div className="flex min-w-0 items-center gap-4">
        <span className="flex shrink-0 items-center text-lg font-bold text-primary">
          {site.is_logo_change && site.logo ? <img src={site.logo} alt={product} className="h-8" /> : product}
        </span>
        {shareText && (
          <p className="truncate text-sm text-gray-600" title={shareText}>
            {shareText}
          </p>
        )}
      </div>
      <div className="flex shrink-0 items-center gap-2">
        {company && (
          <a href={company} target="_blank" rel="noopener noreferrer" className={barButton}>
            {t("share.top.about")}
          </a>
        )}
        {showTransfers && (
          <button type="button" className={barButton} aria-label={t("shell.transfers")} onClick={openTransferPanel}>
            <TransferIcon size={18} />
          </button>
        )}
        <LanguageSwitch />
      </div>
    </header>
  );
}
