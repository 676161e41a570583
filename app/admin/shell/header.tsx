import { Form, Link } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { LanguageSwitch } from "~/components/language-switch";
import { Button } from "~/components/ui/button";
import type { SiteInfo } from "../../../contract/site";
import { productName } from "~/utils/site";

const barLink =
  "flex h-8 items-center rounded px-2 text-sm text-gray-700 hover:bg-gray-100 hover:text-primary focus-visible:outline focus-visible:outline-2 focus-visible:outline-primary";

/** The console's header (spec: Admin Console, account settings, log out), with the language switch. */
export function AdminHeader({ site, account }: { site: SiteInfo; account: string }) {
  const { t, i18n } = useTranslation();
  const product = productName(site, i18n.language);
  return (
    <header className="flex h-[50px] shrink-0 items-center justify-between gap-4 border-b border-gray-200 bg-white px-4">
      <div className="flex items-center gap-3">
        <span className="flex items-center text-lg font-bold text-primary">{site.is_logo_change && site.logo ? <img src={site.logo} alt={product} className="h-8" /> : product}</span>
        <span className="text-base font-semibold text-gray-800">{t("admin.title")}</span>
      </div>
      <div className="flex items-center gap-2">
        <span className="text-sm text-gray-600">{account}</span>
        <Link to="/admin/update-info" className={barLink}>
          {t("admin.header.account")}
        </Link>
        <Form method="post" action="/admin/logout">
          <Button type="submit" variant="text" size="small">
            {t("admin.header.logout")}
          </Button>
        </Form>
        <LanguageSwitch />
      </div>
    </header>
  );
}
