import { data, type LoaderFunctionArgs } from "@remix-run/node";
import { Outlet, useLoaderData, useMatches } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { DesktopClient } from "~/client/desktop-client";
import { SessionTimers } from "~/components/session-timers";
import { LiveNotices } from "~/components/shell/live-notices";
import { SideMenu } from "~/components/shell/side-menu";
import { TopBar } from "~/components/shell/top-bar";
import { FileServerProvider, uploadSettingsOf } from "~/files/file-server-context";
import { TransferPanel } from "~/transfers/transfer-panel";
import { useRootData } from "~/root";
import { env } from "~/utils/env.server";
import { requireUser, signOut } from "~/utils/session.server";
import { productName, productTitleMeta } from "~/utils/site";
import type { ServerInfo } from "../../contract/site";
import type { UserInfo } from "../../contract/users";

export const meta = productTitleMeta;

/** Every signed-in page: the session, the user, the unread count for the bell and how to reach the file server. */
export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  // A sign-in from before the web kept the socket token cannot reach the file server: sign in again.
  if (!user.engine.socketToken) await signOut(request, user.session, "expired");
  const [info, notices, service] = await Promise.all([
    user.call<{ user: UserInfo }>("/api/user/info"),
    user.call<{ unreadCount: number }>("/api/notice/list?pageNum=1&pageSize=1"),
    user.call<{ server: ServerInfo }>("/api/service/info"),
  ]);
  if (!info.result || !info.data) throw new Response(info.message, { status: 502 });
  if (!service.result || !service.data) throw new Response(service.message, { status: 502 });
  const server = service.data.server;
  const fileServer = {
    info: { token: user.engine.socketToken, port: server.no_ssl_port, sslPort: server.ssl_port, host: server.host },
    tcpFileSizeLimit: server.TCPFileSizeLimit * 1024,
    syncSwitch: server.syncSwitch,
    uploads: uploadSettingsOf(server),
  };
  return data({ user: info.data.user, unreadCount: notices.data?.unreadCount ?? 0, fileServer, localClientPorts: env.localClientPorts, installers: server.installers }, { headers: { "Set-Cookie": await user.commit() } });
}

/** A route hides the left menu with `export const handle = { hideMenu: true }`. */
export interface ShellHandle {
  hideMenu?: boolean;
}

export default function AppLayout() {
  const { user, unreadCount, fileServer, localClientPorts, installers } = useLoaderData<typeof loader>();
  const root = useRootData();
  const { i18n } = useTranslation();
  const hideMenu = useMatches().some((m) => (m.handle as ShellHandle | undefined)?.hideMenu);
  if (!root) return null;
  return (
    <FileServerProvider value={fileServer}>
      <div className="flex h-full min-w-[1280px] flex-col">
        <DesktopClient ports={localClientPorts} installers={installers} />
        <TopBar site={root.site} user={user} unreadCount={unreadCount} product={productName(root.site, i18n.language)} />
        <div className="flex min-h-0 flex-1">
          {!hideMenu && <SideMenu accountType={user.accountType} />}
          <main className="min-w-0 flex-1 overflow-auto p-6">
            <Outlet />
          </main>
        </div>
        <SessionTimers />
        <LiveNotices />
        <TransferPanel account={user.account} />
      </div>
    </FileServerProvider>
  );
}
