import { data, type LoaderFunctionArgs } from "@remix-run/node";
import { Outlet, useLoaderData } from "@remix-run/react";
import { AdminFooter } from "~/admin/shell/footer";
import { AdminHeader } from "~/admin/shell/header";
import { AdminSidebar } from "~/admin/shell/sidebar";
import { SessionTimers } from "~/components/session-timers";
import { useRootData } from "~/root";
import { requireAdmin } from "~/utils/session.server";
import { productTitleMeta } from "~/utils/site";
import type { ServerInfo } from "../../contract/site";
import { keepAfterShutdown } from "~/utils/revalidate";

export const meta = productTitleMeta;

/**
 * The admin console's layout: every /admin page but the sign-in and account pages. Only the
 * administrator's own session (cookie `ferry-admin`) gets here; without it, /admin/signin.
 */
export const shouldRevalidate = keepAfterShutdown;

export async function loader({ request }: LoaderFunctionArgs) {
  const admin = await requireAdmin(request);
  const service = await admin.call<{ server: ServerInfo }>("/api/service/info");
  if (!service.result || !service.data) throw new Response(service.message, { status: 502 });
  return data({ account: admin.engine.account, version: service.data.server.version }, { headers: { "Set-Cookie": await admin.commit() } });
}

export default function AdminLayout() {
  const { account, version } = useLoaderData<typeof loader>();
  const root = useRootData();
  if (!root) return null;
  return (
    // The console's minimum width is 1400 px (spec): narrower windows scroll sideways.
    <div className="flex h-full min-w-[1400px] flex-col bg-[#F7F7F7]">
      <AdminHeader site={root.site} account={account} />
      <div className="flex min-h-0 flex-1">
        <AdminSidebar />
        <main className="min-w-0 flex-1 overflow-auto p-6">
          <div className="rounded-lg bg-white p-6 shadow-sm">
            <Outlet />
          </div>
        </main>
      </div>
      <AdminFooter site={root.site} version={version} />
      <SessionTimers logoutAction="/admin/logout" sessionAction="/admin/session" />
    </div>
  );
}
