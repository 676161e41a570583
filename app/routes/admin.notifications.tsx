import { parseWithZod } from "@conform-to/zod/v4";
import { type ActionFunctionArgs, data, type LoaderFunctionArgs, redirect } from "@remix-run/node";
import { Form, Link, useActionData, useFetcher, useLoaderData, useLocation, useNavigate } from "@remix-run/react";
import { useEffect, useState, type FormEvent, type MouseEvent } from "react";
import { useTranslation } from "react-i18next";
import { findUsers, loadListPage, type ListPage, readAdminPost } from "~/admin/list-page.server";
import { listQuery, listSortOf, SortFields, type ListSort } from "~/admin/list-sort";
import { ComposeDialog, ComposePanel, emptyDraft, type ComposeDraft } from "~/admin/notifications/compose";
import { ReceiversPanel } from "~/admin/notifications/receivers";
import type { PickedUser } from "~/admin/notifications/receiver-picker";
import { backSchema, composeSchema, idsOf } from "~/admin/notifications/schema";
import { Button, ButtonLink } from "~/components/ui/button";
import { InlineConfirm } from "~/components/ui/inline-confirm";
import { Modal } from "~/components/ui/modal";
import { Pagination } from "~/components/ui/pagination";
import { Table, type Column, type RowKey, type SortState } from "~/components/ui/table";
import { TextInput } from "~/components/ui/text-input";
import { useToast } from "~/components/ui/toast";
import { redirectWithToast } from "~/utils/toast.server";
import { useHydrated } from "~/utils/use-hydrated";
import { useFormatTime } from "~/utils/use-time-zone";
import { requireAdmin } from "~/utils/session.server";
import { type AdminUser, SEARCH_MAX } from "../../contract/admin";
import { NOTICE_ORDER_BY, type AdminNotice, type NoticeReceiver } from "../../contract/notifications";

const PAGE = "/admin/notifications";
const BULK_FORM = "notices-bulk";
type NoticesSort = ListSort<(typeof NOTICE_ORDER_BY)[number]>;

/** Notifications (admin document sections 3 and 5): the sent list as the URL says (`q`, `page`, `size`, `orderBy`, `order`), sorted and searched by the engine. */
export async function loader({ request }: LoaderFunctionArgs) {
  const admin = await requireAdmin(request);
  const params = new URL(request.url).searchParams;
  const { page, size, search, sort, data: notices } = await loadListPage<AdminNotice, (typeof NOTICE_ORDER_BY)[number]>(admin, params, "/api/admin/notices", NOTICE_ORDER_BY);
  const users = params.get("users");
  const picker = users !== null ? await findUsers(admin, users) : null;
  const back = backSchema.parse(params.get("back") ?? listQuery(search, page, size, sort));
  // Without JavaScript: `compose=1` the form as a section (with what Find sent back), `remove=<ids>` the delete confirmation.
  let draft: ComposeDraft | null = null;
  if (params.get("compose") === "1") {
    const picked: PickedUser[] = [];
    for (const value of params.getAll("receiver").slice(0, 200)) {
      if (!/^\d{1,12}$/.test(value) || picked.some((p) => p.id === Number(value))) continue;
      const user = await admin.call<AdminUser>(`/api/admin/users/${value}`);
      if (user.result && user.data) picked.push({ id: user.data.id, account: user.data.account, email: user.data.email ?? "" });
    }
    draft = users !== null
      ? { title: (params.get("title") ?? "").slice(0, 255), content: (params.get("content") ?? "").slice(0, 20_000), to: params.get("to") === "all" ? "all" : "picked", way: params.getAll("way").filter((w) => w === "website" || w === "email"), picked }
      : emptyDraft;
  }
  const removing = (params.get("remove") ?? "").split(",").filter((v) => /^\d{1,12}$/.test(v)).slice(0, 1000);
  const removeTitle = removing.length === 1 ? (notices.list.find((n) => String(n.id) === removing[0])?.title ?? "") : "";
  // A notification's receivers: `details=<id>` (and `dpage`).
  let details: { notice: AdminNotice | null; id: number; receivers: ListPage<NoticeReceiver> } | null = null;
  const detailsId = params.get("details");
  if (detailsId && /^\d{1,12}$/.test(detailsId)) {
    const dpage = Math.max(1, Math.min(100_000, Number(params.get("dpage") ?? "1") || 1));
    const reply = await admin.call<ListPage<NoticeReceiver>>(`/api/admin/notices/${detailsId}/receivers?pageNum=${dpage}&pageSize=10`);
    if (reply.result && reply.data) details = { id: Number(detailsId), notice: notices.list.find((n) => n.id === Number(detailsId)) ?? null, receivers: reply.data };
  }
  return data(
    { notices: notices.list, total: notices.total, page, size, search, sort, picker, users: users ?? "", back, draft, removing, removeTitle, details },
    { headers: { "Set-Cookie": await admin.commit() } },
  );
}

/**
 * Send and delete. The dialog (a fetcher) gets data back; the page without JavaScript posts `back`
 * and gets a redirect with a toast (a refused send comes back to its form, a delete first to its confirmation).
 */
export async function action({ request }: ActionFunctionArgs) {
  const { form, admin, t, headers } = await readAdminPost(request);
  const back = form.has("back") ? backSchema.parse(form.get("back")) : null;
  const list = `${PAGE}${back ?? ""}`;
  const intent = form.get("intent");
  if (intent === "delete") {
    const ids = idsOf(form);
    if (ids.length === 0) return back === null ? data({ intent: "delete" as const, deleted: 0, code: 400 }, { headers }) : redirectWithToast(list, { type: "error", message: t("error.400") }, { headers });
    if (back !== null && form.get("confirmed") !== "1") {
      const ask = new URLSearchParams(back.slice(1));
      ask.set("remove", ids.join(","));
      return redirect(`${PAGE}?${ask.toString()}`, { headers });
    }
    const reply = await admin.call<{ deleted: number }>("/api/admin/notices/delete", { method: "POST", body: JSON.stringify({ ids }) });
    const deleted = reply.data?.deleted ?? 0;
    if (back !== null)
      return redirectWithToast(list, reply.result ? { type: "success", message: t("admin.notices.deleted", { count: deleted }) } : { type: "error", message: t(`error.${reply.code}`) }, { headers });
    return data({ intent: "delete" as const, deleted, code: reply.result ? 0 : reply.code }, { headers });
  }
  const submission = parseWithZod(form, { schema: composeSchema });
  if (submission.status !== "success") return data({ intent: "send" as const, sent: false as const, byMail: false, code: null, submission: submission.reply() }, { headers });
  const v = submission.value;
  const reply = await admin.call<AdminNotice>("/api/admin/notices", {
    method: "POST",
    body: JSON.stringify({ title: v.title, content: v.content, receivers: v.to === "all" ? "all" : v.receiver, way: v.way }),
  });
  if (!reply.result || !reply.data) return data({ intent: "send" as const, sent: false as const, byMail: false, code: reply.code, submission: submission.reply() }, { headers });
  const byMail = reply.data.way.includes("email");
  if (back !== null) return redirectWithToast(list, { type: "success", message: t(byMail ? "admin.notices.sent.mail" : "admin.notices.sent") }, { headers });
  return data({ intent: "send" as const, sent: true as const, byMail, code: null, submission: submission.reply({ resetForm: true }) }, { headers });
}

const hrefOf = (search: string, page: number, size: number, sort: NoticesSort) => `${PAGE}${listQuery(search, page, size, sort)}`;

function excerpt(text: string, max = 60) {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export default function NotificationsPage() {
  const { notices, total, page, size, search, sort, picker, users, back, draft, removing, removeTitle, details } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const { t } = useTranslation();
  const formatTime = useFormatTime();
  const toast = useToast();
  const location = useLocation();
  const navigate = useNavigate();
  const hydrated = useHydrated();
  const [composing, setComposing] = useState(false);
  const [selected, setSelected] = useState<RowKey[]>([]);
  const [deleting, setDeleting] = useState<number[] | null>(null);
  const remover = useFetcher<typeof action>();
  const withParam = (name: string, value: string) => {
    const q = new URLSearchParams(back.slice(1));
    q.set(name, value);
    return `${PAGE}?${q.toString()}`;
  };

  useEffect(() => {
    const reply = remover.data;
    if (remover.state !== "idle" || !reply || reply.intent !== "delete") return;
    if (reply.code === 0) {
      toast.success(t("admin.notices.deleted", { count: reply.deleted }));
      setDeleting(null);
      setSelected([]);
    } else toast.error(t(`error.${reply.code}`));
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once per answer
  }, [remover.data, remover.state]);

  const askDelete = (ids: number[]) => (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (ids.length > 0) setDeleting(ids);
  };
  const openCompose = (event: MouseEvent) => {
    event.preventDefault();
    setComposing(true);
  };
  const sortedHref = (next: SortState | null) => hrefOf(search, 1, size, listSortOf(next, NOTICE_ORDER_BY));
  const wayText = (n: AdminNotice) => n.way.map((w) => t(`admin.notices.way.${w}`)).join(" + ");
  const receiversText = (n: AdminNotice) =>
    n.receivers > n.receiverAccounts.length ? t("admin.notices.receivers.more", { names: n.receiverAccounts.join(", "), count: n.receivers - n.receiverAccounts.length }) : n.receiverAccounts.join(", ");
  const mailText = (n: AdminNotice) => {
    if (!n.way.includes("email")) return t("admin.notices.mail.none");
    const parts = [t("admin.notices.mail.value", { sent: n.mail.sent })];
    if (n.mail.queued) parts.push(t("admin.notices.mail.queued", { count: n.mail.queued }));
    if (n.mail.failed) parts.push(t("admin.notices.mail.failed", { count: n.mail.failed }));
    if (n.mail.noAddress) parts.push(t("admin.notices.mail.no-address", { count: n.mail.noAddress }));
    return parts.join(" · ");
  };
  const columns: Column<AdminNotice>[] = [
    { key: "select", type: "checkbox", width: 48 },
    { title: t("admin.notices.subject"), dataIndex: "title", type: "custom", sort: true, width: 160, render: (n) => <span className="[overflow-wrap:anywhere]">{n.title}</span> },
    { key: "content", title: t("admin.notices.content"), type: "custom", width: 190, render: (n) => <span className="[overflow-wrap:anywhere]">{excerpt(n.content)}</span> },
    { key: "receivers", title: t("admin.notices.receivers"), type: "custom", sort: true, width: 150, render: (n) => <span className="[overflow-wrap:anywhere]">{receiversText(n)}</span> },
    { key: "way", title: t("admin.notices.way"), type: "custom", width: 90, render: wayText },
    { key: "createTime", title: t("admin.notices.created"), type: "custom", sort: true, width: 110, render: (n) => formatTime(n.createTime) },
    { key: "read", title: t("admin.notices.read"), type: "custom", sort: true, width: 70, render: (n) => (n.way.includes("website") ? t("admin.notices.read.value", { read: n.read, total: n.receivers }) : t("admin.notices.mail.none")) },
    { key: "mail", title: t("admin.notices.mail"), type: "custom", width: 120, render: mailText },
    {
      key: "actions",
      title: t("admin.notices.actions"),
      type: "custom",
      width: 130,
      render: (n) => (
        <span className="flex items-center gap-1 whitespace-nowrap">
          <Link to={withParam("details", String(n.id))} className="inline-flex h-6 items-center rounded px-2 text-sm text-primary hover:bg-primary/10" aria-label={`${t("admin.notices.details")}: ${n.title}`}>
            {t("admin.notices.details")}
          </Link>
          <Form method="post" action={PAGE} onSubmit={askDelete([n.id])} className="inline-flex" preventScrollReset>
            <input type="hidden" name="intent" value="delete" />
            <input type="hidden" name="id" value={n.id} />
            <input type="hidden" name="back" value={back} />
            <Button type="submit" size="small" variant="text" danger aria-label={`${t("global.delete")}: ${n.title}`}>
              {t("global.delete")}
            </Button>
          </Form>
        </span>
      ),
    },
  ];
  const deletingTitle = deleting?.length === 1 ? (notices.find((n) => n.id === deleting[0])?.title ?? "") : "";

  return (
    <div className="flex flex-col gap-4">
      <h1 className="text-lg font-semibold text-gray-900">{t("admin.notices.title")}</h1>
      <div className="flex items-end justify-between gap-4">
        <Form method="get" action={PAGE} role="search" className="flex items-end gap-2">
          <input type="hidden" name="size" value={size} />
          <SortFields sort={sort} />
          <TextInput type="search" name="q" label={t("admin.notices.search")} defaultValue={search} maxLength={SEARCH_MAX} className="w-72" key={location.search} />
          <Button type="submit" variant="outlined">
            {t("global.search")}
          </Button>
        </Form>
        <div className="flex items-center gap-2">
          <Form id={BULK_FORM} method="post" action={PAGE} onSubmit={askDelete(selected.map(Number))}>
            <input type="hidden" name="intent" value="delete" />
            <input type="hidden" name="back" value={back} />
            <Button type="submit" variant="outlined" danger disabled={hydrated && selected.length === 0}>
              {t("admin.notices.delete.selected")}
            </Button>
          </Form>
          <ButtonLink href={withParam("compose", "1")} onClick={openCompose}>
            {t("admin.notices.compose")}
          </ButtonLink>
        </div>
      </div>
      {!hydrated && draft && (
        <ComposePanel
          draft={draft}
          found={picker}
          search={users}
          back={back}
          lastResult={answer && answer.intent === "send" ? answer.submission : undefined}
          code={answer && answer.intent === "send" && !answer.sent ? answer.code : null}
        />
      )}
      {removing.length > 0 && (
        <InlineConfirm
          message={removing.length === 1 && removeTitle ? t("admin.notices.delete.confirm", { title: removeTitle }) : t("admin.notices.delete.selected.confirm", { count: removing.length })}
          action={PAGE}
          fields={{ intent: "delete", ids: removing.join(","), confirmed: "1", back }}
          cancelHref={`${PAGE}${back}`}
        />
      )}
      {details && <ReceiversPanel details={details} closeHref={`${PAGE}${back}`} pageHref={(p) => withParam("details", String(details.id)).concat(`&dpage=${p}`)} />}
      <Table
        label={t("admin.notices.table")}
        columns={columns}
        data={notices}
        rowKey="id"
        rowLabel={(n) => n.title}
        selectedKeys={selected}
        onSelectionChange={(keys) => setSelected(keys)}
        selectionField={{ name: "id", form: BULK_FORM }}
        sort={sort}
        onSortChange={(next) => navigate(sortedHref(next))}
        sortHref={sortedHref}
      />
      <Pagination total={total} page={page} pageSize={size} hrefFor={(p, s) => hrefOf(search, p, s, sort)} />
      <ComposeDialog open={hydrated && composing} onClose={() => setComposing(false)} />
      <Modal
        open={deleting !== null}
        danger
        title={t("admin.notices.delete")}
        onClose={() => setDeleting(null)}
        onConfirm={() => {
          if (deleting) remover.submit({ intent: "delete", ids: deleting.join(",") }, { method: "post", action: PAGE });
          return false;
        }}
      >
        <p>{deleting && deleting.length === 1 && deletingTitle ? t("admin.notices.delete.confirm", { title: deletingTitle }) : t("admin.notices.delete.selected.confirm", { count: deleting?.length ?? 0 })}</p>
      </Modal>
    </div>
  );
}
