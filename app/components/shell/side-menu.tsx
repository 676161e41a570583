import { NavLink } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { ACCOUNT_TYPES } from "../../../contract/users";
import { cn } from "../ui/cn";

const link = ({ isActive }: { isActive: boolean }) =>
  cn("block rounded px-4 py-2 text-sm", isActive ? "bg-primary/10 font-medium text-primary" : "text-gray-700 hover:bg-gray-100");

/** Left menu, 200 px: Personal; Group (not for Linux accounts); P2P with Sender and Receiver; Link. */
export function SideMenu({ accountType }: { accountType: number }) {
  const { t } = useTranslation();
  return (
    <nav aria-label={t("shell.menu.label")} className="w-[200px] shrink-0 border-r border-gray-200 bg-white p-2">
      <ul className="flex flex-col gap-1">
        <li>
          <NavLink to="/personal" className={link}>
            {t("shell.menu.personal")}
          </NavLink>
        </li>
        {accountType !== ACCOUNT_TYPES.Linux && (
          <li>
            <NavLink to="/group" className={link}>
              {t("shell.menu.group")}
            </NavLink>
          </li>
        )}
        <li>
          <span className="block px-4 py-2 text-sm text-gray-500">{t("shell.menu.p2p")}</span>
          <ul className="ml-3 flex flex-col gap-1">
            <li>
              <NavLink to="/p2p/sender" className={link}>
                {t("shell.menu.p2p.sender")}
              </NavLink>
            </li>
            <li>
              <NavLink to="/p2p/receiver" className={link}>
                {t("shell.menu.p2p.receiver")}
              </NavLink>
            </li>
          </ul>
        </li>
        <li>
          <NavLink to="/link" className={link}>
            {t("shell.menu.link")}
          </NavLink>
        </li>
      </ul>
    </nav>
  );
}
