import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from "@remix-run/node";
import { useActionData, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import type { P2pHistoryEntry, P2pSettings } from "../../contract/p2p";
import { readAdminPost, type ListPage } from "~/admin/list-page.server";
import { readP2pLive } from "~/admin/p2p/data.server";
import { P2pHistoryPanel } from "~/admin/p2p/history-panel";
import { P2pLivePanel } from "~/admin/p2p/live-panel";
import { historyEngineQuery, p2pSearch, readP2pQuery } from "~/admin/p2p/query";
import { p2pFormSchema, settingsOfForm } from "~/admin/p2p/schema";
import { P2pSettingsPanel } from "~/admin/p2p/settings-panel";
import { parseFormData } from "~/components/ui/form";
import { Tabs } from "~/components/ui/tabs";
import { requireAdmin } from "~/utils/session.server";
import { timeZoneOfCookieHeader } from "~/utils/time-zone";
import { redirectWithToast } from "~/utils/toast.server";

const PAGE = "/admin/transfer/p2p";

/**
 * Point to point (admin spec section 2 "Transfer: Point to point"; docs/p2p.md): the transfers
 * users send between browsers by device id, in progress (updating live) and ended (history), and
 * the settings the engine enforces. Tabs, search, paging and the settings form are plain links and
 * forms, so the page works without JavaScript (the live list as a snapshot).
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const admin = await requireAdmin(request);
  const query = readP2pQuery(new URL(request.url).searchParams);
  const headers = { "Set-Cookie": await admin.commit() };
  const none = { live: null, history: null, settings: null };
  if (query.tab === "history") {
    const timeZone = timeZoneOfCookieHeader(request.headers.get("Cookie"));
    const page = await admin.call<ListPage<P2pHistoryEntry>>(`/api/logs/transmission/ptp?${historyEngineQuery(query, timeZone)}`);
    if (!page.result || !page.data) throw new Response(page.message, { status: 502 });
    return data({ query, ...none, history: page.data }, { headers });
  }
  if (query.tab === "settings") {
    const settings = await admin.call<P2pSettings>("/api/admin/p2p/settings");
    if (!settings.result || !settings.data) throw new Response(settings.message, { status: 502 });
    return data({ query, ...none, settings: settings.data }, { headers });
  }
  return data({ query, ...none, live: await readP2pLive(admin, query) }, { headers });
}

/** Save the settings (PUT /api/admin/p2p/settings): back to the Settings tab with a toast, or the form's errors under its fields. */
export async function action({ request }: ActionFunctionArgs) {
  const { form, admin, t, headers } = await readAdminPost(request);
  const back = `${PAGE}${p2pSearch({ tab: "settings" })}`;
  if (form.get("intent") !== "p2p") return redirectWithToast(back, { type: "error", message: t("error.400") }, { headers });
  const submission = parseFormData(form, p2pFormSchema, ["holdHours", "maxTransferMiB"]);
  if (submission.status !== "success") return data({ submission: submission.reply() }, { headers });
  const reply = await admin.call<P2pSettings>("/api/admin/p2p/settings", { method: "PUT", body: JSON.stringify(settingsOfForm(submission.value)) });
  if (!reply.result) return data({ submission: submission.reply({ formErrors: [`error.${reply.code}`] }) }, { headers });
  return redirectWithToast(back, { type: "success", message: t("admin.p2p.settings.saved") }, { headers });
}

export default function TransferP2pPage() {
  const { query, live, history, settings } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const { t } = useTranslation();
  return (
    <section className="flex flex-col gap-4">
      <h1 className="text-lg font-semibold">{t("admin.menu.transfer.p2p")}</h1>
      <p className="max-w-4xl text-sm text-gray-600">{t("admin.p2p.intro")}</p>
      <Tabs
        label={t("admin.p2p.tabs")}
        items={[
          { key: "live", label: t("admin.p2p.tab.live") },
          { key: "history", label: t("admin.p2p.tab.history") },
          { key: "settings", label: t("admin.p2p.tab.settings") },
        ]}
        selected={query.tab}
        hrefFor={(key) => `${PAGE}${p2pSearch({ tab: key, size: query.size })}`}
      >
        {history ? (
          <P2pHistoryPanel page={history} query={query} />
        ) : settings ? (
          <P2pSettingsPanel settings={settings} lastResult={answer?.submission} />
        ) : live ? (
          <P2pLivePanel initial={live} query={query} />
        ) : null}
      </Tabs>
    </section>
  );
}
