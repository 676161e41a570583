import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from "@remix-run/node";
import * as z from "zod";
import { getT } from "~/i18n/i18next.server";
import { readForm } from "~/utils/form.server";
import { requireAdmin } from "~/utils/session.server";
import { timeZoneOfCookieHeader } from "~/utils/time-zone";
import { redirectWithToast } from "~/utils/toast.server";
import type { AdminShareDownload, AdminShareItem, shareUrlListData } from "../../../contract/share";
import { adminLinksSearch, engineLinksQuery, LIST_ONLY, type LinksKind, readAdminLinksQuery } from "./query";

/** The engine's answers the screens read (contract/share.ts). */
type LinkPage = { list: AdminShareItem[]; total: number; size: number; current: number };
type DownloadPage = { list: AdminShareDownload[]; total: number; size: number; current: number };

export const LINK_INTENTS = ["disable", "enable", "unbind", "delete"] as const;
export type LinkIntent = (typeof LINK_INTENTS)[number];
/** Actions asked about first (with JavaScript in a dialog, without it on the page). */
export const CONFIRMED_INTENTS: readonly LinkIntent[] = ["disable", "unbind", "delete"];

const pathOf = (kind: LinksKind) => `/admin/shares/${kind}`;

/** One page of links of the screen's kind, and the open link's details and download statistics. */
export function linksLoader(kind: LinksKind) {
  return async ({ request }: LoaderFunctionArgs) => {
    const admin = await requireAdmin(request);
    const url = new URL(request.url);
    const query = readAdminLinksQuery(url.searchParams);
    const timeZone = timeZoneOfCookieHeader(request.headers.get("Cookie"));
    const reply = await admin.call<LinkPage>(`/api/admin/shares?${engineLinksQuery(kind, query, timeZone)}`);
    if (!reply.result || !reply.data) throw new Response(reply.message, { status: 502 });
    const headers = { "Set-Cookie": await admin.commit() };
    // Past the last page (links were deleted meanwhile, or a hand-made address): show the last one.
    const last = Math.max(1, Math.ceil(reply.data.total / query.size));
    if (query.page > last) throw redirect(`${pathOf(kind)}${adminLinksSearch(query, { page: last })}`, { headers });

    let detail: { link: AdminShareItem; downloads: DownloadPage | null } | null = null;
    if (query.detail) {
      const one = await admin.call<AdminShareItem>(`/api/admin/shares/${query.detail}`);
      // A link of the other kind, or one deleted meanwhile: no details, the list stays.
      if (one.result && one.data && one.data.shareUrlType === (kind === "files" ? 1 : 0)) {
        const downloads =
          kind === "files" ? await admin.call<DownloadPage>(`/api/admin/shares/${query.detail}/downloads?pageNum=${query.detailPage}&pageSize=${query.detailSize}`) : null;
        detail = { link: one.data, downloads: downloads?.result && downloads.data ? downloads.data : null };
      }
    }

    // Without JavaScript an action comes back here first, to be confirmed.
    const confirmIntent = url.searchParams.get("confirm") as LinkIntent | null;
    const confirmIds = url.searchParams.getAll("id").slice(0, 1000);
    const confirm = confirmIntent && CONFIRMED_INTENTS.includes(confirmIntent) && confirmIds.length > 0 ? { intent: confirmIntent, ids: confirmIds } : null;
    return data({ kind, query, links: reply.data.list, total: reply.data.total, detail, confirm }, { headers });
  };
}

const actionSchema = z.object({
  intent: z.enum(LINK_INTENTS),
  id: z.array(z.string().min(1).max(2048)).min(1).max(1000),
  confirmed: z.literal("1").optional(),
  /** The page's query to come back to (read again, so only known parameters survive). */
  back: z.string().max(4096).optional(),
});

/** Disable, enable, unbind and delete of exactly the ids posted: a redirect back with a toast. */
export function linksAction(kind: LinksKind) {
  return async ({ request }: ActionFunctionArgs) => {
    const form = await readForm(request);
    const admin = await requireAdmin(request);
    const t = await getT(request);
    const parsed = actionSchema.safeParse({ intent: form.get("intent"), id: form.getAll("id"), confirmed: form.get("confirmed") ?? undefined, back: form.get("back") ?? undefined });
    const back = readAdminLinksQuery(new URLSearchParams(parsed.success ? (parsed.data.back ?? "") : ""));
    const headers = { "Set-Cookie": await admin.commit() };
    const to = `${pathOf(kind)}${adminLinksSearch(back)}`;
    // Without JavaScript the bulk buttons can be pressed with no row ticked.
    if (!parsed.success && form.getAll("id").length === 0) return redirectWithToast(to, { type: "error", message: t("admin.links.select-first") }, { headers });
    if (!parsed.success) return redirectWithToast(to, { type: "error", message: t("error.400") }, { headers });
    const { intent, id, confirmed } = parsed.data;
    if (CONFIRMED_INTENTS.includes(intent) && confirmed !== "1") {
      const ask = new URLSearchParams(adminLinksSearch(back).slice(1));
      ask.set("confirm", intent);
      for (const one of id) ask.append("id", one);
      return redirect(`${pathOf(kind)}?${ask.toString()}`, { headers });
    }
    const reply = await admin.call<z.infer<typeof shareUrlListData>>(`/api/admin/shares/${intent}`, { method: "POST", body: JSON.stringify({ shareUrlList: id }) });
    // A deleted link's details are gone with it.
    const after = intent === "delete" && id.includes(back.detail) ? `${pathOf(kind)}${adminLinksSearch(back, LIST_ONLY)}` : to;
    if (!reply.result || !reply.data) return redirectWithToast(after, { type: "error", message: reply.message || t(`error.${reply.code}`) }, { headers });
    const count = reply.data.affected;
    if (count === 0) return redirectWithToast(after, { type: "info", message: t("admin.links.done.none") }, { headers });
    return redirectWithToast(after, { type: "success", message: t(`admin.links.done.${intent}`, { count }) }, { headers });
  };
}
