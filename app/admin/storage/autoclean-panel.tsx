import { useFetcher } from "@remix-run/react";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { Button } from "~/components/ui/button";
import { Modal } from "~/components/ui/modal";
import { Table, type Column } from "~/components/ui/table";
import type { AutoCleanItem } from "../../../contract/autoclean";
import type { AdminStorage } from "../../../contract/storage";
import type { AutoCleanAnswer } from "./autoclean.server";

/**
 * A local storage's auto-clean buttons (docs/storage.md, "Auto-clean"): "Dry run" lists what a run
 * would move or delete, "Run now" runs, after a confirmation that says what it will do, and lists
 * what it did. Both use the storage's saved settings (the panel says which: the dialog's form above
 * may hold unsaved changes) and post intent "autoclean" to the storage screen's action
 * (autoCleanAction). The storage screen needs JavaScript (its dialogs), and so does this panel.
 */
export function AutoCleanPanel({ storage }: { storage: AdminStorage }) {
  const { t } = useTranslation();
  const fetcher = useFetcher<AutoCleanAnswer>();
  const [confirming, setConfirming] = useState(false);
  const answer = fetcher.data ?? null;
  const busy = fetcher.state !== "idle";
  const by = storage.cleanBy === "off" ? null : storage.cleanBy;
  const policy = !by
    ? t("admin.autoclean.policy.off")
    : t(storage.recyclePath ? "admin.autoclean.policy.recycle" : "admin.autoclean.policy.delete", { by: t(`admin.autoclean.by.${by}`), age: t(`admin.autoclean.age.${storage.cleanAge}`), to: storage.recyclePath });
  const run = (dryRun: boolean) => fetcher.submit({ intent: "autoclean", id: String(storage.id), dryRun: dryRun ? "1" : "0" }, { method: "post" });
  const columns: Column<AutoCleanItem>[] = [
    { key: "path", title: t("admin.autoclean.col.path"), dataIndex: "path", type: "ellipsis" },
    { key: "size", title: t("admin.autoclean.col.size"), dataIndex: "size", width: 110 },
    { key: "time", title: t("admin.autoclean.col.time"), dataIndex: "time", type: "time", render: (row) => new Date(row.time).toLocaleString() },
    { key: "action", title: t("admin.autoclean.col.action"), type: "custom", render: (row) => (row.action === "recycle" ? t("admin.autoclean.action.recycle", { to: row.to ?? "" }) : t("admin.autoclean.action.delete")) },
  ];
  return (
    <section aria-label={t("admin.autoclean.title")} className="mt-4 space-y-3">
      <p className="text-sm text-gray-600">{t("admin.autoclean.saved-note", { policy })}</p>
      <div className="flex gap-2">
        <Button variant="outlined" disabled={busy} onClick={() => run(true)}>
          {t("admin.autoclean.dry-run")}
        </Button>
        <Button disabled={busy} onClick={() => setConfirming(true)}>
          {t("admin.autoclean.run-now")}
        </Button>
      </div>
      <Modal open={confirming} danger title={t("admin.autoclean.confirm.title")} confirmLabel={t("admin.autoclean.run-now")} onClose={() => setConfirming(false)} onConfirm={() => run(false)}>
        <p>{t("admin.autoclean.confirm.message", { name: storage.name, policy })}</p>
      </Modal>
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
