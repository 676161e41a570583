import { useFetcher } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { Button } from "~/components/ui/button";
import { Table, type Column } from "~/components/ui/table";
import type { AutoCleanItem } from "../../../contract/autoclean";
import type { AutoCleanAnswer } from "./autoclean.server";

/**
 * A local storage's auto-clean buttons (docs/storage.md, "Auto-clean"): "Dry run" lists what a run
 * would move or delete, "Run now" runs with the saved settings and lists what it did. Both post
 * intent "autoclean" to the storage screen's action (autoCleanAction), so they work without
 * JavaScript too when the page renders the action's answer.
 */
export function AutoCleanPanel({ storageId, answer: fallback }: { storageId: number; answer?: AutoCleanAnswer | null }) {
  const { t } = useTranslation();
  const fetcher = useFetcher<AutoCleanAnswer>();
  const answer = fetcher.data ?? fallback ?? null;
  const busy = fetcher.state !== "idle";
  const columns: Column<AutoCleanItem>[] = [
    { key: "path", title: t("admin.autoclean.col.path"), dataIndex: "path", type: "ellipsis" },
    { key: "size", title: t("admin.autoclean.col.size"), dataIndex: "size", width: 110 },
    { key: "time", title: t("admin.autoclean.col.time"), dataIndex: "time", type: "time", render: (row) => new Date(row.time).toLocaleString() },
    { key: "action", title: t("admin.autoclean.col.action"), type: "custom", render: (row) => (row.action === "recycle" ? t("admin.autoclean.action.recycle", { to: row.to ?? "" }) : t("admin.autoclean.action.delete")) },
  ];
  return (
    <section aria-label={t("admin.autoclean.title")} className="mt-4 space-y-3">
      <fetcher.Form method="post" className="flex gap-2">
        <input type="hidden" name="intent" value="autoclean" />
        <input type="hidden" name="id" value={storageId} />
        <Button type="submit" name="dryRun" value="1" variant="outlined" disabled={busy}>
          {t("admin.autoclean.dry-run")}
        </Button>
        <Button type="submit" name="dryRun" value="0" disabled={busy}>
          {t("admin.autoclean.run-now")}
        </Button>
      </fetcher.Form>
      {answer && !answer.ok ? (
        <p role="alert" className="text-sm text-red-600">
          {t(`error.${answer.code}`)}
        </p>
      ) : null}
      {answer?.ok ? (
        <div className="space-y-2">
          <p role="status" className="text-sm">
            {t(answer.report.dryRun ? "admin.autoclean.summary.dry" : "admin.autoclean.summary.run", {
              moved: answer.report.moved,
              deleted: answer.report.deleted,
              inUse: answer.report.skippedInUse,
              bytes: answer.report.bytes,
              errors: answer.report.errors.length,
            })}
            {answer.report.truncated ? ` ${t("admin.autoclean.truncated")}` : ""}
          </p>
          <Table label={t(answer.report.dryRun ? "admin.autoclean.list.dry" : "admin.autoclean.list.run")} columns={columns} data={answer.report.items} rowKey="path" />
        </div>
      ) : null}
    </section>
  );
}
