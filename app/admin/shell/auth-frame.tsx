import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { LanguageSwitch } from "~/components/language-switch";
import { useRootData } from "~/root";
import { productName } from "~/utils/site";

/** The frame of the console's pages outside its layout (sign-in, account settings): the product, "Admin Console", a card. */
export function AdminAuthFrame({ children }: { children: ReactNode }) {
  const root = useRootData();
  const { t, i18n } = useTranslation();
  if (!root) return null;
  const product = productName(root.site, i18n.language);
  return (
    <div className="flex min-h-full items-center justify-center bg-[#F7F7F7] p-10">
      <LanguageSwitch className="fixed right-6 top-4 rounded bg-white/90 shadow-sm" />
      <main className="w-[420px] rounded-lg bg-white p-8 shadow-lg">
        <div className="mb-4 flex items-center gap-3">
          {root.site.is_logo_change && root.site.logo ? (
            <img src={root.site.logo} alt={product} className="h-10" />
          ) : (
            <span aria-hidden="true" className="text-2xl font-bold text-primary">
              {product}
            </span>
          )}
          <span className="text-base font-semibold text-gray-700">{t("admin.title")}</span>
        </div>
        {children}
      </main>
    </div>
  );
}
