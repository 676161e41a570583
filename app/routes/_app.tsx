import { data, type LoaderFunctionArgs } from "@remix-run/node";
import { Outlet, useLoaderData, useMatches } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { SessionTimers } from "~/components/session-timers";
import { SideMenu } from "~/components/shell/side-menu";
import { TopBar } from "~/components/shell/top-bar";
import { useRootData } from "~/root";
import { requireUser } from "~/utils/session.server";
import { productName, productTitleMeta } from "~/utils/site";
import type { UserInfo } from "../../contract/users";

export const meta = productTitleMeta;

/** Every signed-in page: the session, the user and the unread count for the bell. */
export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const [info, notices] = await Promise.all([
    user.call<{ user: UserInfo }>("/api/user/info"),
    user.call<{ unreadCount: number }>("/api/notice/list?pageNum=1&pageSize=1"),
  ]);
  if (!info.result || !info.data) throw new Response(info.message, { status: 502 });
  return data({ user: info.data.user, unreadCount: notices.data?.unreadCount ?? 0 }, { headers: { "Set-Cookie": await user.commit() } });
}

/** A route hides the left menu with `export const handle = { hideMenu: true }`. */
export interface ShellHandle {
  hideMenu?: boolean;
}

export default function AppLayout() {
  const { user, unreadCount } = useLoaderData<typeof loader>();
  const root = useRootData();
  const { i18n } = useTranslation();
  const hideMenu = useMatches().some((m) => (m.handle as ShellHandle | undefined)?.hideMenu);
  if (!root) return null;
  return (
    <div className="flex h-full min-w-[1400px] flex-col">
      <TopBar site={root.site} user={user} unreadCount={unreadCount} product={productName(root.site, i18n.language)} />
      <div className="flex min-h-0 flex-1">
        {!hideMenu && <SideMenu accountType={user.accountType} />}
        <main className="min-w-0 flex-1 overflow-auto p-6">
          <Outlet />
        </main>
      </div>
      <SessionTimers />
    </div>
  );
}
