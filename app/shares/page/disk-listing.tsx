import { Form, Link } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { Breadcrumb } from "../../components/ui/breadcrumb";
import { Button } from "../../components/ui/button";
import { FileIcon, FolderIcon } from "../../components/ui/icons";
import { Pagination } from "../../components/ui/pagination";
import { Table, type Column } from "../../components/ui/table";
import type { FileEntry } from "../../../contract/files";
import { breadcrumbParts, joinPath } from "../../files/model";
import { formatSize } from "../../utils/format";
import { useFormatTime } from "../../utils/use-time-zone";

export interface ListingPage {
  entries: FileEntry[];
  total: number;
  page: number;
  size: number;
}

/** `?path=&page=&size=` of the share page, "/" and the first page left out. */
export function listingHref(path: string, page = 1, size = 10): string {
  const query = new URLSearchParams();
  if (path !== "/") query.set("path", path);
  if (page > 1) query.set("page", String(page));
  if (size !== 10) query.set("size", String(size));
  const text = query.toString();
  return text ? `?${text}` : "?";
}

/**
 * The disk view as plain HTML (no JavaScript needed): the shared items, folders as `?path=` links,
 * a Download button per file (a POST form: the action records the download and redirects to the
 * file server's signed URL), paged with links. With JavaScript the page swaps this for the file
 * browser in share mode.
 */
export function DiskListing({ path, listing, allowDownload }: { path: string; listing: ListingPage; allowDownload: boolean }) {
  const { t } = useTranslation();
  const formatTime = useFormatTime();
  const columns: Column<FileEntry>[] = [
    {
      type: "custom",
      key: "name",
      title: t("files.column.name"),
      render: (entry) =>
        entry.file_type === "File" ? (
          <span className="flex min-w-0 items-center gap-2">
            <FileIcon className="shrink-0 text-gray-500" />
            <span className="truncate" title={entry.name}>
              {entry.name}
            </span>
          </span>
        ) : (
          <Link to={listingHref(joinPath(path, entry.name))} className="flex min-w-0 items-center gap-2 hover:text-primary" aria-label={t("share.disk.open-folder", { name: entry.name })}>
            <FolderIcon className="shrink-0 text-amber-500" />
            <span className="truncate" title={entry.name}>
              {entry.name}
            </span>
          </Link>
        ),
    },
    // A phone keeps the name and the Download button.
    { type: "custom", key: "size", title: t("files.column.size"), width: 140, minScreen: "sm", render: (entry) => (entry.file_type === "File" ? formatSize(entry.size) : "-") },
    { type: "custom", key: "time", title: t("files.column.time"), width: 200, minScreen: "sm", render: (entry) => formatTime(entry.time) },
    {
      type: "custom",
      key: "download",
      width: 140,
      hidden: !allowDownload,
      render: (entry) =>
        entry.file_type === "File" ? (
          <Form method="post" reloadDocument>
            <input type="hidden" name="intent" value="download" />
            <input type="hidden" name="path" value={joinPath(path, entry.name)} />
            <Button type="submit" size="small" variant="outlined" aria-label={t("share.disk.download-name", { name: entry.name })}>
              {t("share.disk.download")}
            </Button>
          </Form>
        ) : null,
    },
  ];
  return (
    <div className="flex flex-col gap-4">
      <Breadcrumb
        label={t("share.disk.breadcrumb")}
        crumbs={breadcrumbParts(path).map((part) => ({ key: part.path, label: part.path === "/" ? t("share.disk.root") : part.name, href: listingHref(part.path) }))}
      />
      <Table columns={columns} data={listing.entries} rowKey="name" label={t("share.disk.table", { path })} />
      {listing.total > listing.size && (
        <Pagination total={listing.total} page={listing.page} pageSize={listing.size} hrefFor={(page, size) => listingHref(path, page, size)} className="self-end" />
      )}
    </div>
  );
}
