import { Form, Link, useLoaderData, useLocation, useNavigate, useNavigation } from "@remix-run/react";
import type { FormEvent } from "react";
import { useTranslation } from "react-i18next";
import * as z from "zod";
import { Button } from "~/components/ui/button";
import { Facts } from "~/components/ui/facts";
import type { FormField } from "~/components/ui/form";
import { FolderIcon } from "~/components/ui/icons";
import { Pagination } from "~/components/ui/pagination";
import { Table, type Column } from "~/components/ui/table";
import { AskModal, ConfirmList, LinkActionForm, LinkTypeIcon, LinkSearch, linkFilterFields, linkSearchSchema, LinkTable, PageConfirm, SortFields, useAsk, useLinkSelection } from "~/shares/link-table";
import { formatSize } from "~/utils/format";
import { useHydrated } from "~/utils/use-hydrated";
import { useFormatTime } from "~/utils/use-time-zone";
import type { AdminShareDownload, AdminShareItem } from "../../../contract/share";
import type { linksLoader, LinkIntent } from "./links.server";
import { adminLinksSearch, LINK_SORT_KEYS, LIST_ONLY, type AdminLinksQuery, type LinksKind } from "./query";

type Loader = ReturnType<typeof linksLoader>;
/** Intents asked about first; enable is not. */
type AskIntent = Exclude<LinkIntent, "enable">;

/** The id of the bulk form, which the table's row boxes belong to. */
const BULK_FORM = "links-bulk";
const searchSchema = linkSearchSchema.extend({ account: z.string().max(64).optional() });

/** A link's name in lists and confirmations: its files, or an invitation's directory. */
export const nameOf = (link: AdminShareItem) => (link.shareUrlType === 0 ? link.shareServerPath : link.filename.join(", "));
/** A link in a confirmation: its name and owner. */
const ownedName = (link: AdminShareItem) => `${nameOf(link)} (${link.account})`;

/** Normal, expired, disabled by the administrator, or cancelled by its owner; and a locked owner. */
function StatusCell({ link }: { link: AdminShareItem }) {
  const { t } = useTranslation();
  const [text, tone] = link.disabled
    ? [t("admin.links.status.3"), "text-red-700 font-medium"]
    : link.shareStatus === 3
      ? [t("admin.links.status.canceled"), "text-gray-600"]
      : link.shareStatus === 2
        ? [t("admin.links.status.2"), "text-gray-600"]
        : [t("admin.links.status.1"), "text-green-700"];
  return (
    <span className="flex flex-col leading-tight">
      <span className={tone}>{text}</span>
      {link.ownerLocked && <span className="text-xs text-red-700">{t("admin.links.owner-locked")}</span>}
    </span>
  );
}

/** What the expanded row and the details show about one link. */
function LinkFacts({ link }: { link: AdminShareItem }) {
  const { t } = useTranslation();
  const formatTime = useFormatTime();
  const invitation = link.shareUrlType === 0;
  const end = link.shareExpireTime === 0 ? t("admin.links.never") : formatTime(link.shareExpireTime);
  return (
    <Facts
      className="py-1"
      rows={[
        [t("admin.links.detail.link"), link.shareLink, "mono"],
        [t("admin.links.detail.owner"), link.account],
        invitation ? [t("admin.links.detail.directory"), link.shareServerPath] : [t("admin.links.detail.files"), link.shareFiles, "list"],
        [t("admin.links.detail.password"), t(link.needPassword ? "admin.links.detail.password.set" : "admin.links.detail.password.none")],
        [t("admin.links.detail.bind"), t(link.bindSwitch ? "admin.links.yes" : "admin.links.no")],
        link.bindSwitch === 1 && [t("admin.links.detail.device"), link.bindDevice || t("admin.links.detail.device.none"), "mono"],
        [t(invitation ? "admin.links.detail.invited" : "admin.links.detail.created"), formatTime(link.shareCreateTime)],
        invitation
          ? [t("admin.links.detail.window"), t("admin.links.detail.window.value", { start: formatTime(link.shareCreateTime), end })]
          : [t("admin.links.detail.expires"), end],
        [
          t("admin.links.detail.status"),
          <span key="status" className="flex flex-wrap items-baseline gap-x-3">
            <StatusCell link={link} />
            {link.disabled && <span className="text-xs text-gray-600">{t("admin.links.detail.disabled", { time: formatTime(link.disabledTime) })}</span>}
          </span>,
        ],
      ]}
    />
  );
}

/** The open link's details and, for a download link, its download statistics, paged. */
function DetailPanel({
  path,
  query,
  link,
  downloads,
}: {
  path: string;
  query: AdminLinksQuery;
  link: AdminShareItem;
  downloads: { list: AdminShareDownload[]; total: number } | null;
}) {
  const { t } = useTranslation();
  const formatTime = useFormatTime();
  const name = nameOf(link);
  const columns: Column<AdminShareDownload & { key: string }>[] = [
    { type: "custom", key: "ip", title: t("admin.links.stats.address"), width: 200, render: (d) => <span className="break-all font-mono text-xs">{d.ip || t("admin.links.stats.unknown")}</span> },
    {
      type: "custom",
      key: "files",
      title: t("admin.links.stats.files"),
      render: (d) => (
        <span className="block break-all" title={d.files.join(", ")}>
          {d.files.join(", ")}
        </span>
      ),
    },
    { type: "time", key: "time", title: t("admin.links.stats.time"), render: (d) => formatTime(d.time) },
    { type: "custom", key: "bytes", title: t("admin.links.stats.bytes"), width: 120, render: (d) => formatSize(d.bytes) },
  ];
  const rows = (downloads?.list ?? []).map((d, i) => ({ ...d, key: `${d.time}-${i}` }));
  return (
    <section aria-labelledby="link-detail-title" className="flex flex-col gap-3 rounded border border-gray-200 bg-white p-4">
      <div className="flex items-start justify-between gap-4">
        <h2 id="link-detail-title" className="break-all font-medium">
          {t("admin.links.detail.title", { name })}
        </h2>
        <Link to={`${path}${adminLinksSearch(query, LIST_ONLY)}`} preventScrollReset className="shrink-0 text-sm text-primary hover:underline">
          {t("admin.links.detail.close")}
        </Link>
      </div>
      <LinkFacts link={link} />
      {downloads && (
        <>
          <h3 className="font-medium">
            {t("admin.links.stats.title")} ({downloads.total})
          </h3>
          <Table columns={columns} data={rows} rowKey="key" label={t("admin.links.stats.table", { name })} />
          {downloads.total > 0 && (
            <Pagination
              total={downloads.total}
              page={query.detailPage}
              pageSize={query.detailSize}
              label={t("admin.links.stats.pages")}
              hrefFor={(page, size) => `${path}${adminLinksSearch(query, { detailPage: page, detailSize: size })}`}
              className="justify-end"
            />
          )}
        </>
      )}
    </section>
  );
}

/**
 * Share files (download links) and Request files (upload invitations): every user's links, searched,
 * filtered, sorted and paged in the engine; details with download statistics; disable / enable /
 * unbind / delete, single and bulk, confirmed first; plain HTML forms that JavaScript improves.
 */
export function AdminLinksScreen() {
  const { kind, query, links, total, detail, confirm } = useLoaderData<Loader>();
  const { t } = useTranslation();
  const formatTime = useFormatTime();
  const location = useLocation();
  const navigate = useNavigate();
  const navigation = useNavigation();
  const hydrated = useHydrated();
  const files = kind === "files";
  const path = `/admin/shares/${kind satisfies LinksKind}`;
  const back = adminLinksSearch(query);
  const selection = useLinkSelection(links);
  const { selectedLinks } = selection;
  const question = useAsk<AskIntent>(path, back);
  const ask = question.ask;

  const go = (change: Partial<AdminLinksQuery>) => navigate(`${path}${adminLinksSearch(query, { ...LIST_ONLY, ...change })}`, { preventScrollReset: true });
  const askBulk = (event: FormEvent<HTMLFormElement>) => {
    const intent = ((event.nativeEvent as SubmitEvent).submitter as HTMLButtonElement | null)?.value as LinkIntent | undefined;
    // Enable goes straight on with the ticked rows (the boxes belong to this form); the rest ask first.
    if (intent === "enable") return;
    event.preventDefault();
    const ids = selectedLinks.map((link) => link.shareId);
    if (intent && ids.length > 0) ask(intent, ids);
  };
  const detailHref = (link: AdminShareItem) => `${path}${adminLinksSearch(query, { detail: link.shareId, detailPage: 1, detailSize: 10 })}`;

  const actions = (link: AdminShareItem) => {
    const name = nameOf(link);
    return (
      <span className="flex flex-wrap items-center gap-1">
        {link.disabled ? (
          <LinkActionForm path={path} intent="enable" ids={[link.shareId]} back={back}>
            <Button type="submit" size="small" variant="text" aria-label={t("admin.links.enable.row", { name })}>
              {t("admin.links.enable")}
            </Button>
          </LinkActionForm>
        ) : (
          <LinkActionForm path={path} intent="disable" ids={[link.shareId]} back={back} onAsk={ask}>
            <Button type="submit" size="small" variant="text" aria-label={t("admin.links.disable.row", { name })}>
              {t("admin.links.disable")}
            </Button>
          </LinkActionForm>
        )}
        {link.bindSwitch === 1 && link.bindDevice !== "" && (
          <LinkActionForm path={path} intent="unbind" ids={[link.shareId]} back={back} onAsk={ask}>
            <Button type="submit" size="small" variant="text" aria-label={t("admin.links.unbind.row", { name })}>
              {t("admin.links.unbind")}
            </Button>
          </LinkActionForm>
        )}
        <LinkActionForm path={path} intent="delete" ids={[link.shareId]} back={back} onAsk={ask}>
          <Button type="submit" size="small" variant="text" danger aria-label={t("admin.links.delete.row", { name })}>
            {t("admin.links.delete")}
          </Button>
        </LinkActionForm>
      </span>
    );
  };

  const nameColumn: Column<AdminShareItem> = {
    type: "custom",
    key: "name",
    title: t(files ? "admin.links.column.files" : "admin.links.column.directory"),
    sort: true,
    render: (link) => (
      <span className="flex min-w-0 items-center gap-2">
        {files ? <LinkTypeIcon type={link.type} /> : <FolderIcon className="shrink-0 text-amber-500" />}
        <Link to={detailHref(link)} preventScrollReset className="truncate text-primary hover:underline" title={nameOf(link)} aria-label={t("admin.links.details.row", { name: nameOf(link) })}>
          {nameOf(link)}
        </Link>
      </span>
    ),
  };
  const ownerColumn: Column<AdminShareItem> = {
    type: "custom",
    key: "owner",
    title: t("admin.links.column.owner"),
    // No width: the owner shares what the time columns leave with the name.
    sort: true,
    nowrap: true,
    render: (link) => link.account,
  };
  const statusColumn: Column<AdminShareItem> = { type: "custom", key: "status", title: t("admin.links.column.status"), width: 95, sort: true, render: (link) => <StatusCell link={link} /> };
  const actionsColumn: Column<AdminShareItem> = { type: "custom", key: "actions", title: t("admin.links.column.actions"), width: 150, render: actions };
  const never = (seconds: number) => (seconds === 0 ? t("admin.links.never") : formatTime(seconds));

  const columns: Column<AdminShareItem>[] = files
    ? [
        { type: "checkbox", width: 44 },
        { type: "expand", width: 44 },
        nameColumn,
        ownerColumn,
        { type: "time", key: "created", title: t("admin.links.column.created"), sort: true, render: (link) => formatTime(link.shareCreateTime) },
        { type: "time", key: "expires", title: t("admin.links.column.expires"), sort: true, render: (link) => never(link.shareExpireTime) },
        { type: "custom", key: "bind", title: t("admin.links.column.bind"), width: 80, render: (link) => t(link.bindSwitch ? "admin.links.yes" : "admin.links.no") },
        {
          type: "custom",
          key: "downloads",
          title: t("admin.links.column.downloads"),
          width: 95,
          sort: true,
          render: (link) => (
            <Link
              to={detailHref(link)}
              preventScrollReset
              className="text-primary hover:underline"
              aria-label={t("admin.links.downloads.row", { count: link.downloadCount, name: nameOf(link) })}
            >
              {link.downloadCount}
            </Link>
          ),
        },
        statusColumn,
        actionsColumn,
      ]
    : [
        { type: "checkbox", width: 44 },
        { type: "expand", width: 44 },
        nameColumn,
        ownerColumn,
        { type: "time", key: "created", title: t("admin.links.column.invited"), sort: true, render: (link) => formatTime(link.shareCreateTime) },
        {
          type: "custom",
          key: "expires",
          title: t("admin.links.column.window"),
          width: 340,
          sort: true,
          nowrap: true,
          render: (link) => t("admin.links.detail.window.value", { start: formatTime(link.shareCreateTime), end: never(link.shareExpireTime) }),
        },
        statusColumn,
        actionsColumn,
      ];

  const searchFields: FormField[] = [
    { name: "name", label: t(files ? "admin.links.search.name.files" : "admin.links.search.name.requests"), type: "input" },
    { name: "account", label: t("admin.links.search.account"), type: "input" },
    ...linkFilterFields({ status: t("admin.links.search.status"), all: t("global.all"), statusOf: (s) => t(`admin.links.status.${s}`), created: t("admin.links.search.created") }),
  ];

  const busy = navigation.state !== "idle";
  const bulkDisabled = hydrated && (selectedLinks.length === 0 || busy);
  const title = t(files ? "admin.links.title.files" : "admin.links.title.requests");

  return (
    <section aria-labelledby="links-title" className="flex flex-col gap-4">
      <div className="flex flex-col gap-1">
        <h1 id="links-title" className="text-lg font-semibold">
          {title}
        </h1>
        <p className="text-sm text-gray-600">{t(files ? "admin.links.intro.files" : "admin.links.intro.requests")}</p>
      </div>

      <LinkSearch
        label={t("admin.links.search")}
        path={path}
        schema={searchSchema}
        fields={searchFields}
        defaultValue={{ name: query.name, account: query.account, status: query.status, created: { start: query.createdStart, end: query.createdEnd } }}
        onReset={() => go({ name: "", account: "", status: "", createdStart: "", createdEnd: "", page: 1 })}
      >
        {query.size !== 10 && <input type="hidden" name="size" value={query.size} />}
        <SortFields sort={query.sort} keys={LINK_SORT_KEYS} />
      </LinkSearch>

      {confirm && (
        <PageConfirm
          id="links-confirm-title"
          path={path}
          back={back}
          asking={confirm}
          title={t(`admin.links.confirm.${confirm.intent}.title`)}
          message={t(`admin.links.confirm.${confirm.intent}`, { count: confirm.ids.length })}
          backLabel={t("admin.links.confirm.back")}
          danger={confirm.intent === "delete"}
          list={<ConfirmList ids={confirm.ids} links={links} label={ownedName} />}
        />
      )}

      {detail && <DetailPanel path={path} query={query} link={detail.link} downloads={detail.downloads} />}

      {/* The rows' boxes belong to this form (Table selectionField), so it works as plain HTML too;
          with JavaScript the buttons wait for a selection and the question is a dialog. */}
      <Form id={BULK_FORM} method="post" action={path} onSubmit={askBulk} preventScrollReset role="group" aria-label={t("admin.links.bulk")} className="flex items-center gap-2">
        <input type="hidden" name="back" value={back} />
        <Button type="submit" name="intent" value="disable" variant="outlined" disabled={bulkDisabled}>
          {t("admin.links.disable")}
        </Button>
        <Button type="submit" name="intent" value="enable" variant="outlined" disabled={bulkDisabled}>
          {t("admin.links.enable")}
        </Button>
        <Button type="submit" name="intent" value="unbind" variant="outlined" disabled={bulkDisabled}>
          {t("admin.links.unbind")}
        </Button>
        <Button type="submit" name="intent" value="delete" variant="outlined" danger disabled={bulkDisabled}>
          {t("admin.links.delete")}
        </Button>
      </Form>

      <LinkTable
        key={location.search}
        columns={columns}
        links={links}
        rowLabel={nameOf}
        label={t(files ? "admin.links.table.files" : "admin.links.table.requests")}
        selection={selection}
        bulkForm={BULK_FORM}
        expanded={(link) => <LinkFacts link={link} />}
        sort={query.sort}
        onSort={(sort) => go({ sort, page: 1 })}
        sortHref={(sort) => `${path}${adminLinksSearch(query, { ...LIST_ONLY, sort, page: 1 })}`}
      />
      {total > 0 && (
        <Pagination total={total} page={query.page} pageSize={query.size} label={t("admin.links.pages")} hrefFor={(page, size) => `${path}${adminLinksSearch(query, { ...LIST_ONLY, page, size })}`} className="justify-end" />
      )}

      <AskModal
        ask={question}
        title={(a) => t(`admin.links.confirm.${a.intent}.title`)}
        message={(a) => t(`admin.links.confirm.${a.intent}`, { count: a.ids.length })}
        danger={(a) => a.intent === "delete"}
        list={(a) => <ConfirmList ids={a.ids} links={links} label={ownedName} />}
      />
    </section>
  );
}
