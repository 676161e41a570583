import { Menu, MenuButton, MenuItem, MenuItems } from "@headlessui/react";
import { Link, useSubmit } from "@remix-run/react";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import type { SiteInfo } from "../../../contract/site";
import { EMAIL_SENDER } from "../../../contract/mail";
import { ACCOUNT_TYPES, type UserInfo } from "../../../contract/users";
import { LanguageSwitch } from "../language-switch";
import { BellIcon, ChevronDownIcon, DownloadIcon, TransferIcon, UserIcon } from "../ui/icons";
import { openTransferPanel } from "../../transfers/transfer-panel";
import { useFileConnection } from "../../files/file-server-context";
import { ChangePasswordDialog } from "./change-password-dialog";
import { SmtpDialog } from "./smtp-dialog";

const PLATFORMS = ["exe", "deb", "rpm", "dmg"] as const;
const menuItem = "block w-full px-4 py-2 text-left text-sm text-gray-700 data-[focus]:bg-gray-100 data-[focus]:text-primary";
const barButton = "flex h-8 items-center gap-1 rounded px-2 text-sm text-gray-700 hover:bg-gray-100 hover:text-primary focus-visible:outline focus-visible:outline-2 focus-visible:outline-primary";

/** The account name with a suffix for directory (LDAP) and e-mail accounts (spec section 2). */
export function accountLabel(user: Pick<UserInfo, "account" | "accountType">, t: (key: string) => string) {
  if (user.accountType === ACCOUNT_TYPES.Domain) return `${user.account} (${t("shell.account.ldap")})`;
  if (user.accountType === ACCOUNT_TYPES.Email) return `${user.account} (${t("shell.account.email")})`;
  return user.account;
}

/** Top bar, 50 px: logo, download menu, notification bell, account menu, transfer list, language. */
export function TopBar({ site, user, unreadCount, product }: { site: SiteInfo; user: UserInfo; unreadCount: number; product: string }) {
  const { t } = useTranslation();
  const [changingPassword, setChangingPassword] = useState(false);
  const [editingSmtp, setEditingSmtp] = useState(false);
  const submit = useSubmit();
  const connection = useFileConnection();
  return (
    <header className="flex h-[50px] shrink-0 items-center justify-between border-b border-gray-200 bg-white px-4">
      <Link to="/personal" className="flex items-center gap-2 text-lg font-bold text-primary">
        {site.is_logo_change && site.logo ? <img src={site.logo} alt={product} className="h-8" /> : product}
      </Link>
      <div className="flex items-center gap-2">
        <Menu as="div" className="relative">
          <MenuButton className={barButton}>
            <DownloadIcon />
            {t("shell.download")}
            <ChevronDownIcon size={12} />
          </MenuButton>
          <MenuItems anchor="bottom end" className="z-20 mt-1 w-48 rounded border border-gray-200 bg-white py-1 shadow-lg focus:outline-none">
            {PLATFORMS.map((platform) => (
              <MenuItem key={platform}>
                <a href={`/download/${platform}`} className={menuItem}>
                  {t(`shell.download.${platform}`)}
                </a>
              </MenuItem>
            ))}
          </MenuItems>
        </Menu>

        <Link to="/notification" className={`${barButton} relative`} aria-label={unreadCount > 0 ? t("shell.notifications.unread", { count: unreadCount }) : t("shell.notifications")}>
          <BellIcon size={18} />
          {unreadCount > 0 && (
            <span aria-hidden="true" className="absolute -right-1 -top-1 min-w-[18px] rounded-full bg-red-600 px-1 text-center text-[11px] leading-[18px] text-white">
              {unreadCount > 99 ? "99+" : unreadCount}
            </span>
          )}
        </Link>

        <Menu as="div" className="relative">
          <MenuButton className={barButton} aria-label={t("shell.account", { account: accountLabel(user, t) })}>
            <UserIcon />
            <span>{accountLabel(user, t)}</span>
            <ChevronDownIcon size={12} />
          </MenuButton>
          <MenuItems anchor="bottom end" className="z-20 mt-1 w-48 rounded border border-gray-200 bg-white py-1 shadow-lg focus:outline-none">
            {user.accountType === ACCOUNT_TYPES.Normal && (
              <MenuItem>
                <button type="button" className={menuItem} onClick={() => setChangingPassword(true)}>
                  {t("shell.account.password")}
                </button>
              </MenuItem>
            )}
            {/* Spec: e-mail settings only for a user with an e-mail sender type of their own (2; docs/mail.md, "Whose account"). */}
            {user.emailSenderType === EMAIL_SENDER.own && (
              <MenuItem>
                <button type="button" className={menuItem} onClick={() => setEditingSmtp(true)}>
                  {t("mail.smtp.menu")}
                </button>
              </MenuItem>
            )}
            <MenuItem>
              {/* The menu unmounts as it closes, so the post is made here rather than by a form inside it. */}
              <button
                type="button"
                className={menuItem}
                onClick={() => {
                  // Signing out revokes the socket token: end the connection first, so its refusal is not taken for an expired sign-in.
                  connection?.close();
                  submit(null, { method: "post", action: "/logout" });
                }}
              >
                {t("shell.account.logout")}
              </button>
            </MenuItem>
          </MenuItems>
        </Menu>

        <button type="button" className={barButton} aria-label={t("shell.transfers")} onClick={openTransferPanel}>
          <TransferIcon size={18} />
        </button>

        <LanguageSwitch />
      </div>
      <ChangePasswordDialog open={changingPassword} onClose={() => setChangingPassword(false)} />
      <SmtpDialog open={editingSmtp} onClose={() => setEditingSmtp(false)} />
    </header>
  );
}
