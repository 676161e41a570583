import { type ActionFunctionArgs, data, type LoaderFunctionArgs, redirect } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import * as z from "zod";
import type { TransferLogDetail, TransferLogPage } from "../../contract/tasks";
import { ErrorCode } from "../../contract/errors";
import { readLive } from "~/admin/tasks/data.server";
import { LivePanel } from "~/admin/tasks/live-panel";
import { LogPanel } from "~/admin/tasks/log-panel";
import { logEngineQuery, readTasksQuery, tasksSearch } from "~/admin/tasks/query";
import { Tabs } from "~/components/ui/tabs";
import { getT } from "~/i18n/i18next.server";
import { readForm } from "~/utils/form.server";
import { requireAdmin } from "~/utils/session.server";
import { redirectWithToast } from "~/utils/toast.server";

/**
 * General tasks (admin spec section 2 "Transfer: General tasks"; docs/admin-api.md, "Transfer
 * tasks"): the transfers in progress on the engine, updating live, each with Stop, the throughput,
 * and the transfer log with its detail. Tabs, search, paging and the stop's confirmation are plain
 * links and forms, so the page works without JavaScript as a snapshot.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const admin = await requireAdmin(request);
  const query = readTasksQuery(new URL(request.url).searchParams);
  const headers = { "Set-Cookie": await admin.commit() };
  if (query.tab === "log") {
    const [page, detail] = await Promise.all([
      admin.call<TransferLogPage>(`/api/admin/logs/transfers?${logEngineQuery(query)}`),
      query.detail ? admin.call<TransferLogDetail>(`/api/admin/logs/transfers/${query.detail}`) : null,
    ]);
    if (!page.result || !page.data) throw new Response(page.message, { status: 502 });
    return data({ query, live: null, log: page.data, detail: detail?.result && detail.data ? detail.data : null }, { headers });
  }
  return data({ query, live: await readLive(admin, query), log: null, detail: null }, { headers });
}

const actionSchema = z.object({ intent: z.literal("stop"), id: z.string().uuid(), confirmed: z.literal("1").optional(), back: z.string().max(2048).optional() });

/** Stop (POST /api/admin/tasks/:id/stop), confirmed first: back to the list with a toast. */
export async function action({ request }: ActionFunctionArgs) {
  const form = await readForm(request);
  const admin = await requireAdmin(request);
  const t = await getT(request);
  const headers = { "Set-Cookie": await admin.commit() };
  const parsed = actionSchema.safeParse(Object.fromEntries(form));
  const back = String(form.get("back") ?? "");
  const to = `/admin/transfer/tasks${back.startsWith("?") ? back : ""}`;
  if (!parsed.success) return redirectWithToast(to, { type: "error", message: t("error.400") }, { headers });
  if (parsed.data.confirmed !== "1") {
    const params = new URLSearchParams(back.startsWith("?") ? back.slice(1) : "");
    params.set("confirm", parsed.data.id);
    return redirect(`/admin/transfer/tasks?${params.toString()}`, { headers });
  }
  const reply = await admin.call(`/api/admin/tasks/${parsed.data.id}/stop`, { method: "POST" });
  if (!reply.result) {
    const message = reply.code === ErrorCode.TaskNotLive ? t("admin.tasks.gone") : reply.message || t(`error.${reply.code}`);
    return redirectWithToast(to, { type: "error", message }, { headers });
  }
  return redirectWithToast(to, { type: "success", message: t("admin.tasks.stopped") }, { headers });
}

export default function TransferTasksPage() {
  const { query, live, log, detail } = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  return (
    <section className="flex flex-col gap-4">
      <h1 className="text-lg font-semibold">{t("admin.menu.transfer.tasks")}</h1>
      <Tabs
        label={t("admin.tasks.tabs")}
        items={[
          { key: "live", label: t("admin.tasks.tab.live") },
          { key: "log", label: t("admin.tasks.tab.log") },
        ]}
        selected={query.tab}
        hrefFor={(key) => `/admin/transfer/tasks${tasksSearch({ tab: key, size: query.size })}`}
      >
        {log ? <LogPanel page={log} detail={detail} query={query} /> : live ? <LivePanel initial={live} query={query} /> : null}
      </Tabs>
    </section>
  );
}
