import { NavLink } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { cn } from "~/components/ui/cn";
import { ADMIN_MENU, type AdminPage } from "./menu";

const linkClass = ({ isActive }: { isActive: boolean }) =>
  cn(
    "block rounded px-4 py-1.5 text-sm focus-visible:outline focus-visible:outline-2 focus-visible:outline-primary",
    isActive ? "bg-primary/10 font-medium text-primary" : "text-gray-700 hover:bg-gray-100",
  );

function PageLink({ page }: { page: AdminPage }) {
  const { t } = useTranslation();
  return (
    // "Server" (/admin) is active on its own address only, not on every console page below it.
    <NavLink to={page.to} end className={linkClass}>
      {t(page.label)}
    </NavLink>
  );
}

/** The console's sidebar: the spec's entries in order, groups as labelled lists of links (Tab moves through them). */
export function AdminSidebar() {
  const { t } = useTranslation();
  return (
    <nav aria-label={t("admin.menu.label")} className="w-[220px] shrink-0 overflow-y-auto border-r border-gray-200 bg-white p-2">
      <ul className="flex flex-col gap-1">
        {ADMIN_MENU.map((entry) =>
          "pages" in entry ? (
            <li key={entry.label}>
              <span id={`admin-menu-${entry.label}`} className="block px-4 pb-1 pt-3 text-xs font-semibold uppercase tracking-wide text-gray-600">
                {t(entry.label)}
              </span>
              <ul aria-labelledby={`admin-menu-${entry.label}`} className="flex flex-col gap-1">
                {entry.pages.map((page) => (
                  <li key={page.to}>
                    <PageLink page={page} />
                  </li>
                ))}
              </ul>
            </li>
          ) : (
            <li key={entry.to}>
              <PageLink page={entry} />
            </li>
          ),
        )}
      </ul>
    </nav>
  );
}
