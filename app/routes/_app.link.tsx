import { type ActionFunctionArgs, data, type LoaderFunctionArgs, redirect } from "@remix-run/node";
import { Form, Link, useLoaderData, useLocation, useNavigate, useNavigation } from "@remix-run/react";
import type { FormEvent } from "react";
import { useTranslation } from "react-i18next";
import * as z from "zod";
import { Button } from "~/components/ui/button";
import type { FormField } from "~/components/ui/form";
import { Pagination } from "~/components/ui/pagination";
import type { Column } from "~/components/ui/table";
import { useToast } from "~/components/ui/toast";
import { copyToClipboard } from "~/shares/clipboard";
import { engineListQuery, linkSearch, readLinkQuery, SORT_KEYS, type LinkQuery } from "~/shares/link-query";
import { AskModal, ConfirmList, LinkActionForm, LinkTypeIcon, LinkSearch, linkFilterFields, linkSearchSchema, LinkTable, PageConfirm, SortFields, useAsk, useLinkSelection } from "~/shares/link-table";
import { copyText } from "~/shares/rules";
import { timeZoneOfCookieHeader } from "~/utils/time-zone";
import { useHydrated } from "~/utils/use-hydrated";
import { useFormatTime } from "~/utils/use-time-zone";
import { requireUser } from "~/utils/session.server";
import { redirectWithToast } from "~/utils/toast.server";
import type { ShareListItem, shareListData, shareUrlListData } from "../../contract/share";
import { readForm } from "~/utils/form.server";

type Intent = "cancel" | "delete";

/** Link management (spec section 2): the caller's share links or upload invitations, one page, as the URL says. */
export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const url = new URL(request.url);
  const query = readLinkQuery(url.searchParams);
  const timeZone = timeZoneOfCookieHeader(request.headers.get("Cookie"));
  const reply = await user.call<z.infer<typeof shareListData>>(`/api/share/link/list?${engineListQuery(query, timeZone)}`);
  if (!reply.result || !reply.data) throw new Response(reply.message, { status: 502 });
  const headers = { "Set-Cookie": await user.commit() };
  // Past the last page (links were deleted meanwhile, or a hand-made address): show the last one.
  const last = Math.max(1, reply.data.pages);
  if (query.page > last) throw redirect(`/link${linkSearch(query, { page: last })}`, { headers });
  // Without JavaScript a cancel or delete comes back here first, to be confirmed.
  const confirmIntent = url.searchParams.get("confirm");
  const confirmIds = url.searchParams.getAll("id").slice(0, 1000);
  // A cancel asks about the links in use only (an expired or cancelled one is not cancelled again).
  const listed = new Map(reply.data.sharelinkinfo.map((link) => [link.shareId, link]));
  const inUse = (id: string) => {
    const link = listed.get(id);
    return !link || cancelable(link);
  };
  const askIds = confirmIntent === "cancel" ? confirmIds.filter(inUse) : confirmIds;
  const confirm = (confirmIntent === "cancel" || confirmIntent === "delete") && askIds.length > 0 ? { intent: confirmIntent as Intent, ids: askIds } : null;
  // Without JavaScript the bulk Cancel can be pressed with only expired or cancelled links ticked.
  const nothingToCancel = confirmIntent === "cancel" && confirmIds.length > 0 && askIds.length === 0;
  return data({ query, links: reply.data.sharelinkinfo, total: reply.data.total, confirm, nothingToCancel }, { headers });
}

const actionSchema = z.object({
  intent: z.enum(["cancel", "delete", "unbind"]),
  id: z.array(z.string().min(1).max(2048)).min(1).max(1000),
  confirmed: z.literal("1").optional(),
  /** The page's query to come back to (read again, so only known parameters survive). */
  back: z.string().max(4096).optional(),
});

const SUCCESS: Record<z.infer<typeof actionSchema>["intent"], string> = { cancel: "link.done.cancel", delete: "link.done.delete", unbind: "link.done.unbind" };

/** Cancel, delete (both confirmed first) and unbind: POST forms, answered with a redirect back and a toast. */
export async function action({ request }: ActionFunctionArgs) {
  const form = await readForm(request);
  const user = await requireUser(request);
  const parsed = actionSchema.safeParse({ intent: form.get("intent"), id: form.getAll("id"), confirmed: form.get("confirmed") ?? undefined, back: form.get("back") ?? undefined });
  const back = readLinkQuery(new URLSearchParams(parsed.success ? (parsed.data.back ?? "") : ""));
  const to = `/link${linkSearch(back)}`;
  const headers = { "Set-Cookie": await user.commit() };
  // Without JavaScript the bulk buttons can be pressed with no row ticked.
  if (!parsed.success && form.getAll("id").length === 0) return redirectWithToast(to, { type: "error", message: "link.select-first" }, { headers });
  if (!parsed.success) return redirectWithToast(to, { type: "error", message: "error.400" }, { headers });
  const { intent, id, confirmed } = parsed.data;
  if (intent !== "unbind" && confirmed !== "1") {
    const ask = new URLSearchParams(linkSearch(back).slice(1));
    ask.set("confirm", intent);
    for (const one of id) ask.append("id", one);
    return redirect(`/link?${ask.toString()}`, { headers });
  }
  const reply =
    intent === "cancel"
      ? await user.call<z.infer<typeof shareUrlListData>>("/api/share/link/cancel", { method: "PATCH", body: JSON.stringify({ shareUrlList: id }) })
      : intent === "delete"
        ? await user.call<z.infer<typeof shareUrlListData>>("/api/share/link/delete", { method: "POST", body: JSON.stringify({ shareUrlList: id }) })
        : await user.call<z.infer<typeof shareUrlListData>>("/api/share/link/unbind", { method: "POST", body: JSON.stringify({ urls: id.slice(0, 1) }) });
  if (!reply.result) return redirectWithToast(to, { type: "error", message: `error.${reply.code}` }, { headers });
  return redirectWithToast(to, { type: "success", message: SUCCESS[intent] }, { headers });
}

const namesOf = (link: ShareListItem) => link.filename.join(", ");
/** Only a link in use can be cancelled: an expired or cancelled one no longer opens anyway (the engine skips them too). */
const cancelable = (link: ShareListItem) => link.shareStatus === 1;
/** The id of the bulk cancel / delete form, which the table's row boxes belong to. */
const BULK_FORM = "link-bulk";

const statusClass = { 1: "text-green-700", 2: "text-gray-500", 3: "text-red-600" } as const;

function Detail({ link, request }: { link: ShareListItem; request: boolean }) {
  const { t } = useTranslation();
  const toast = useToast();
  const copy = async () => {
    const ok = await copyToClipboard(copyText(link.shareLink, link.sharePassword, { link: t("share.link"), password: t("share.password") }));
    if (ok) toast.success(t("share.copy.done"));
    else toast.error(t("share.copy.failed"));
  };
  const row = "grid grid-cols-[120px_1fr] items-center gap-2";
  return (
    <dl className="flex flex-col gap-1.5 py-1">
      <div className={row}>
        <dt className="text-gray-500">{t("link.detail.link")}</dt>
        <dd className="flex items-center gap-2">
          <span className="break-all font-mono text-xs">{link.shareLink}</span>
          <Button size="small" variant="outlined" onClick={() => void copy()} aria-label={`${t("share.copy")} ${namesOf(link)}`}>
            {t("share.copy")}
          </Button>
        </dd>
      </div>
      <div className={row}>
        <dt className="text-gray-500">{t("link.detail.password")}</dt>
        <dd className="font-mono text-xs">{link.sharePassword || t("link.detail.none")}</dd>
      </div>
      <div className={row}>
        <dt className="text-gray-500">{t("link.detail.path")}</dt>
        <dd className="break-all">{link.shareFiles.join(", ") || link.shareServerPath}</dd>
      </div>
      {/* The table shows these two as columns from 1400 px up only. */}
      <div className={`${row} min-[1400px]:hidden`}>
        <dt className="text-gray-500">{t("link.column.email")}</dt>
        <dd className="break-all">{link.shareEmail ? link.shareEmail.split(";").join(", ") : "-"}</dd>
      </div>
      <div className={`${row} min-[1400px]:hidden`}>
        <dt className="text-gray-500">{t(request ? "link.column.notify.upload" : "link.column.notify.download")}</dt>
        <dd>{t(link.notifyEmail ? "link.on" : "link.off")}</dd>
      </div>
      {link.bindSwitch === 1 && (
        <div className={row}>
          <dt className="text-gray-500">{t("link.detail.device")}</dt>
          <dd className="break-all font-mono text-xs">{link.bindDevice || t("link.detail.none")}</dd>
        </div>
      )}
    </dl>
  );
}

export default function LinkPage() {
  const { query, links, total, confirm, nothingToCancel } = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const formatTime = useFormatTime();
  const location = useLocation();
  const navigate = useNavigate();
  const navigation = useNavigation();
  const hydrated = useHydrated();
  const back = linkSearch(query);
  const request = query.tab === "request";
  const selection = useLinkSelection(links);
  const { selectedLinks } = selection;
  const question = useAsk<Intent>("/link", back);
  const ask = question.ask;
  const cancelIds = selectedLinks.filter(cancelable).map((link) => link.shareId);

  const go = (change: Partial<LinkQuery>) => navigate(`/link${linkSearch(query, change)}`, { preventScrollReset: true });
  const askBulk = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const intent = ((event.nativeEvent as SubmitEvent).submitter as HTMLButtonElement | null)?.value;
    // The ids of the rows shown ticked on this page, and for Cancel only the links still in use.
    const ids = intent === "cancel" ? cancelIds : selectedLinks.map((link) => link.shareId);
    if ((intent === "cancel" || intent === "delete") && ids.length > 0) ask(intent, ids);
  };
  const columns: Column<ShareListItem>[] = [
    { type: "checkbox", width: 44 },
    { type: "expand", width: 44 },
    {
      type: "custom",
      key: "name",
      title: t("link.column.name"),
      sort: true,
      render: (link) => (
        <span className="flex min-w-0 items-center gap-2">
          <LinkTypeIcon type={link.type} />
          <span className="truncate" title={namesOf(link)}>
            {namesOf(link)}
          </span>
        </span>
      ),
    },
    { type: "custom", key: "createTime", title: t("link.column.create-time"), width: 165, sort: true, render: (link) => formatTime(link.shareCreateTime) },
    {
      type: "custom",
      key: "expireTime",
      title: t("link.column.expire-time"),
      width: 165,
      sort: true,
      render: (link) => (link.shareExpireTime === 0 ? t("link.never") : formatTime(link.shareExpireTime)),
    },
    {
      type: "custom",
      key: "email",
      title: t("link.column.email"),
      width: 140,
      // Below 1400 px the name needs the room; the expanded row lists the addresses and notices.
      minScreen: "wide",
      render: (link) => (
        <span className="block truncate" title={link.shareEmail}>
          {link.shareEmail ? link.shareEmail.split(";").join(", ") : "-"}
        </span>
      ),
    },
    { type: "custom", key: "notify", title: t(request ? "link.column.notify.upload" : "link.column.notify.download"), width: 110, minScreen: "wide", render: (link) => t(link.notifyEmail ? "link.on" : "link.off") },
    {
      type: "custom",
      key: "status",
      title: t("link.column.status"),
      width: 80,
      sort: true,
      render: (link) => <span className={statusClass[link.shareStatus]}>{t(`link.status.${link.shareStatus}`)}</span>,
    },
    {
      type: "custom",
      key: "actions",
      title: t("link.column.actions"),
      width: 180,
      render: (link) => (
        <span className="flex items-center gap-1">
          {cancelable(link) && (
            <LinkActionForm path="/link" intent="cancel" ids={[link.shareId]} back={back} onAsk={ask}>
              <Button type="submit" size="small" variant="text" aria-label={t("link.cancel.row", { name: namesOf(link) })}>
                {t(request ? "link.cancel.invite" : "link.cancel")}
              </Button>
            </LinkActionForm>
          )}
          <LinkActionForm path="/link" intent="delete" ids={[link.shareId]} back={back} onAsk={ask}>
            <Button type="submit" size="small" variant="text" danger aria-label={t("link.delete.row", { name: namesOf(link) })}>
              {t("link.delete")}
            </Button>
          </LinkActionForm>
          {link.bindSwitch === 1 && link.bindDevice !== "" && (
            <LinkActionForm path="/link" intent="unbind" ids={[link.shareId]} back={back}>
              <Button type="submit" size="small" variant="text" aria-label={t("link.unbind.row", { name: namesOf(link) })}>
                {t("link.unbind")}
              </Button>
            </LinkActionForm>
          )}
        </span>
      ),
    },
  ];

  const searchFields: FormField[] = [
    { name: "name", label: t("link.search.name"), type: "input" },
    ...linkFilterFields({ status: t("link.search.status"), all: t("global.all"), statusOf: (s) => t(`link.status.${s}`), created: t("link.search.created") }),
  ];

  const busy = navigation.state !== "idle";
  const bulkDisabled = hydrated && (selectedLinks.length === 0 || busy);
  const bulkCancelDisabled = hydrated && (cancelIds.length === 0 || busy);
  const tabs = [
    { tab: "share" as const, label: t("link.tab.share") },
    { tab: "request" as const, label: t("link.tab.request") },
  ];

  return (
    <section aria-labelledby="link-title" className="flex flex-col gap-4">
      <h1 id="link-title" className="text-lg font-semibold">
        {t("link.title")}
      </h1>
      <nav role="tablist" aria-label={t("link.tabs")} className="flex gap-6 border-b border-gray-200">
        {tabs.map(({ tab, label }) => (
          <Link
            key={tab}
            role="tab"
            aria-selected={query.tab === tab}
            to={`/link${linkSearch({ ...query, tab, page: 1, name: "", status: "", createdStart: "", createdEnd: "" }, {})}`}
            className={`-mb-px border-b-2 px-1 pb-2 text-sm ${query.tab === tab ? "border-primary font-medium text-primary" : "border-transparent text-gray-600 hover:text-gray-900"}`}
          >
            {label}
          </Link>
        ))}
      </nav>

      <LinkSearch
        label={t("link.search")}
        path="/link"
        schema={linkSearchSchema}
        fields={searchFields}
        defaultValue={{ name: query.name, status: query.status, created: { start: query.createdStart, end: query.createdEnd } }}
        onReset={() => go({ name: "", status: "", createdStart: "", createdEnd: "", page: 1 })}
      >
        {query.tab !== "share" && <input type="hidden" name="tab" value={query.tab} />}
        <SortFields sort={query.sort} keys={SORT_KEYS} />
      </LinkSearch>

      {nothingToCancel && (
        <p role="alert" className="rounded border border-amber-300 bg-amber-50 px-4 py-3 text-sm">
          {t("link.cancel.none")}
        </p>
      )}
      {confirm && (
        <PageConfirm
          id="link-confirm-title"
          path="/link"
          back={back}
          asking={confirm}
          title={t(`link.confirm.${confirm.intent}.title`)}
          message={t(`link.confirm.${confirm.intent}`, { count: confirm.ids.length })}
          backLabel={t("link.confirm.back")}
          danger={confirm.intent === "delete"}
          list={<ConfirmList ids={confirm.ids} links={links} label={namesOf} />}
        />
      )}

      {/* The rows' boxes belong to this form (Table selectionField), so it works as plain HTML too;
          with JavaScript the buttons wait for a selection and the question is a dialog. */}
      <Form
        id={BULK_FORM}
        method="post"
        action="/link"
        onSubmit={askBulk}
        preventScrollReset
        role="group"
        aria-label={t("link.bulk")}
        className="flex items-center gap-2"
      >
        <input type="hidden" name="back" value={back} />
        <Button type="submit" name="intent" value="cancel" variant="outlined" disabled={bulkCancelDisabled}>
          {t(request ? "link.cancel.invite" : "link.cancel")}
        </Button>
        <Button type="submit" name="intent" value="delete" variant="outlined" danger disabled={bulkDisabled}>
          {t("link.delete")}
        </Button>
      </Form>

      <LinkTable
        key={`${query.tab}-${location.search}`}
        columns={columns}
        links={links}
        rowLabel={namesOf}
        label={t(request ? "link.table.request" : "link.table.share")}
        selection={selection}
        bulkForm={BULK_FORM}
        expanded={(link) => <Detail link={link} request={request} />}
        sort={query.sort}
        onSort={(sort) => go({ sort, page: 1 })}
        sortHref={(sort) => `/link${linkSearch(query, { sort, page: 1 })}`}
      />
      {total > 0 && (
        <Pagination total={total} page={query.page} pageSize={query.size} hrefFor={(page, size) => `/link${linkSearch(query, { page, size })}`} className="justify-end" />
      )}

      <AskModal
        ask={question}
        title={(a) => t(`link.confirm.${a.intent}.title`)}
        message={(a) => t(`link.confirm.${a.intent}`, { count: a.ids.length })}
        danger={(a) => a.intent === "delete"}
        list={(a) => <ConfirmList ids={a.ids} links={links} label={namesOf} />}
      />
    </section>
  );
}
