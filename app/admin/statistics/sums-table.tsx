import { Form, useNavigate } from "@remix-run/react";
import { useId } from "react";
import { useTranslation } from "react-i18next";
import type { StatisticsRow } from "../../../contract/statistics";
import { formatSize } from "../../../contract/sizes";
import { Button, ButtonLink } from "~/components/ui/button";
import { Empty } from "~/components/ui/empty";
import { Pagination } from "~/components/ui/pagination";
import { Table, type Column, type SortState } from "~/components/ui/table";
import { TextInput } from "~/components/ui/text-input";

/** A byte count shown with formatSize, the exact count kept machine-readable in <data value>. */
export const Bytes = ({ bytes }: { bytes: number }) => <data value={bytes}>{formatSize(bytes)}</data>;

/** The sums' columns every statistics table shows after its first (name) column. */
export function sumColumns(t: (key: string) => string, sortable: boolean): Column<StatisticsRow>[] {
  return [
    { key: "uploadBytes", title: t("admin.statistics.uploaded"), type: "custom", sort: sortable, render: (r) => <Bytes bytes={r.uploadBytes} /> },
    { key: "uploads", title: t("admin.statistics.uploads"), type: "custom", sort: sortable, render: (r) => String(r.uploads) },
    { key: "downloadBytes", title: t("admin.statistics.downloaded"), type: "custom", sort: sortable, render: (r) => <Bytes bytes={r.downloadBytes} /> },
    { key: "downloads", title: t("admin.statistics.downloads"), type: "custom", sort: sortable, render: (r) => String(r.downloads) },
    { key: "totalBytes", title: t("admin.statistics.total"), type: "custom", sort: sortable, render: (r) => <Bytes bytes={r.uploadBytes + r.downloadBytes} /> },
    { key: "failed", title: t("admin.statistics.failed"), type: "custom", render: (r) => String(r.failed) },
  ];
}

export interface SumsList {
  list: StatisticsRow[];
  total: number;
  page: number;
  size: number;
  search: string;
  sort: SortState;
}

/**
 * One paged list of sums (per user or per group space): a search (GET form keeping the rest of the
 * address), sortable headers as links, the pagination bar and the CSV export of the whole list.
 */
export function SumsTable({
  by,
  data,
  hrefFor,
  hidden,
  exportHref,
}: {
  by: "user" | "group";
  data: SumsList;
  /** The page's address with this list's search, page, size and order changed. */
  hrefFor: (change: { q?: string; page?: number; size?: number; sort?: SortState | null }) => string;
  /** The rest of the address, kept by the search form. */
  hidden: Record<string, string>;
  exportHref: string;
}) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const headingId = useId();
  const prefix = by === "user" ? "u" : "g";
  const nameTitle = by === "user" ? t("admin.statistics.account") : t("admin.statistics.group");
  const columns: Column<StatisticsRow>[] = [
    {
      key: "name",
      title: nameTitle,
      type: "custom",
      sort: true,
      render: (r) => <span className="[overflow-wrap:anywhere]">{by === "user" && r.name === "" ? t("admin.statistics.visitor") : r.name}</span>,
    },
    ...sumColumns(t, true),
  ];
  const title = by === "user" ? t("admin.statistics.by-user") : t("admin.statistics.by-group");
  return (
    <section aria-labelledby={headingId} className="flex flex-col gap-3">
      <div className="flex items-end justify-between gap-4">
        <h2 id={headingId} className="text-base font-semibold text-gray-900">
          {title}
        </h2>
        <ButtonLink href={exportHref} variant="outlined" download>
          {by === "user" ? t("admin.statistics.export.user") : t("admin.statistics.export.group")}
        </ButtonLink>
      </div>
      <Form method="get" action="/admin/statistics" role="search" aria-label={title} className="flex items-end gap-2" preventScrollReset>
        {Object.entries(hidden).map(([name, value]) => (
          <input key={name} type="hidden" name={name} value={value} />
        ))}
        <TextInput
          type="search"
          name={`${prefix}q`}
          label={by === "user" ? t("admin.statistics.user.search") : t("admin.statistics.group.search")}
          defaultValue={data.search}
          maxLength={64}
          className="w-72"
          key={data.search}
        />
        <Button type="submit" variant="outlined">
          {t("global.search")}
        </Button>
      </Form>
      {data.list.length === 0 ? (
        <Empty description={t("admin.statistics.empty")} />
      ) : (
        <>
          <Table
            label={title}
            columns={columns}
            data={data.list}
            rowKey="key"
            rowLabel={(r) => r.name}
            sort={data.sort}
            onSortChange={(next) => navigate(hrefFor({ sort: next, page: 1 }), { preventScrollReset: true })}
            sortHref={(next) => hrefFor({ sort: next, page: 1 })}
          />
          <Pagination label={title} total={data.total} page={data.page} pageSize={data.size} hrefFor={(page, size) => hrefFor({ page, size })} />
        </>
      )}
    </section>
  );
}
