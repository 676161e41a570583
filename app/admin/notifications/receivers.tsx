import { Link } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { Pagination } from "~/components/ui/pagination";
import { Table, type Column } from "~/components/ui/table";
import type { AdminNotice, NoticeReceiver } from "../../../contract/notifications";

type Page<T> = { list: T[]; total: number; size: number; current: number };

/** A notification's receivers: read on the website, and the e-mail's state with the mail server's answer when it failed. */
export function ReceiversPanel({
  details,
  closeHref,
  pageHref,
}: {
  details: { notice: AdminNotice | null; id: number; receivers: Page<NoticeReceiver> };
  closeHref: string;
  pageHref: (page: number) => string;
}) {
  const { t } = useTranslation();
  const mailState = (r: NoticeReceiver) => (r.mail === "failed" ? t("admin.notices.mail.state.failed", { error: r.mailError }) : t(`admin.notices.mail.state.${r.mail}`));
  const columns: Column<NoticeReceiver>[] = [
    { title: t("admin.notices.details.account"), dataIndex: "account", type: "ellipsis" },
    { key: "email", title: t("admin.notices.details.email"), type: "custom", render: (r) => <span className="[overflow-wrap:anywhere]">{r.email || t("admin.notices.no-address")}</span> },
    { key: "read", title: t("admin.notices.details.read"), type: "custom", render: (r) => (r.read ? t("admin.notices.details.yes") : t("admin.notices.details.no")) },
    { key: "mail", title: t("admin.notices.details.mail"), type: "custom", render: (r) => <span className={r.mail === "failed" ? "text-red-700 [overflow-wrap:anywhere]" : undefined}>{mailState(r)}</span> },
  ];
  const title = t("admin.notices.details.title", { title: details.notice?.title ?? `#${details.id}` });
  return (
    <section aria-labelledby="receivers-title" className="flex flex-col gap-3 rounded border border-gray-200 bg-white p-4">
      <div className="flex items-center justify-between gap-4">
        <h2 id="receivers-title" className="text-base font-semibold text-gray-900 [overflow-wrap:anywhere]">
          {title}
        </h2>
        <Link to={closeHref} className="inline-flex h-8 shrink-0 items-center rounded border border-gray-300 px-3 text-sm text-gray-800 hover:bg-gray-50">
          {t("global.close")}
        </Link>
      </div>
      <Table label={t("admin.notices.details.table")} columns={columns} data={details.receivers.list} rowKey="userId" rowLabel={(r) => r.account} />
      {details.receivers.total > details.receivers.size && (
        <Pagination total={details.receivers.total} page={details.receivers.current} pageSize={details.receivers.size} hrefFor={(p) => pageHref(p)} />
      )}
    </section>
  );
}
