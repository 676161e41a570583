import type { adminEn } from "~/i18n/messages/admin";

type Key = keyof typeof adminEn;

/** A page of the console: its sidebar label (also its heading) and address. */
export interface AdminPage {
  label: Key;
  to: string;
}

/** A sidebar entry: a page, or a labelled group of pages. */
export type AdminMenuEntry = AdminPage | { label: Key; pages: AdminPage[] };

/**
 * The sidebar exactly as the spec lists it (admin document, section 2), in its order. The spec shows
 * no addresses but /admin/update-info; these are Ferry's own (docs/web.md, "Admin console"). Each
 * address is a route `app/routes/admin.<…>.tsx`; a screen not built yet shows `ComingPage`.
 */
export const ADMIN_MENU: AdminMenuEntry[] = [
  { label: "admin.menu.server", to: "/admin" },
  {
    label: "admin.menu.resource",
    pages: [
      { label: "admin.menu.nodes", to: "/admin/nodes" },
      { label: "admin.menu.storage", to: "/admin/storage" },
    ],
  },
  {
    label: "admin.menu.transfer",
    pages: [
      { label: "admin.menu.transfer.tasks", to: "/admin/transfer/tasks" },
      { label: "admin.menu.transfer.p2p", to: "/admin/transfer/p2p" },
      { label: "admin.menu.transfer.sync", to: "/admin/transfer/sync" },
    ],
  },
  {
    label: "admin.menu.shares",
    pages: [
      { label: "admin.menu.shares.requests", to: "/admin/shares/requests" },
      { label: "admin.menu.shares.files", to: "/admin/shares/files" },
      { label: "admin.menu.shares.email", to: "/admin/shares/email" },
    ],
  },
  {
    label: "admin.menu.users",
    pages: [
      { label: "admin.menu.users.list", to: "/admin/users" },
      { label: "admin.menu.logs", to: "/admin/logs" },
      { label: "admin.menu.groups", to: "/admin/groups" },
      { label: "admin.menu.authentication", to: "/admin/authentication" },
      { label: "admin.menu.statistics", to: "/admin/statistics" },
      { label: "admin.menu.notifications", to: "/admin/notifications" },
    ],
  },
  {
    label: "admin.menu.settings",
    pages: [
      { label: "admin.menu.settings.tls", to: "/admin/settings/tls" },
      { label: "admin.menu.settings.client-tls", to: "/admin/settings/client-tls" },
      { label: "admin.menu.settings.mysql", to: "/admin/settings/mysql" },
      { label: "admin.menu.settings.protocol", to: "/admin/settings/protocol" },
      { label: "admin.menu.settings.events", to: "/admin/settings/events" },
      { label: "admin.menu.settings.general", to: "/admin/settings/general" },
    ],
  },
  { label: "admin.menu.site-design", to: "/admin/site-design" },
];

/** Every page of the sidebar, in order. */
export const ADMIN_PAGES: AdminPage[] = ADMIN_MENU.flatMap((entry) => ("pages" in entry ? entry.pages : [entry]));
