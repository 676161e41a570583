import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { Facts, type Fact } from "~/components/ui/facts";
import { Table, type Column } from "~/components/ui/table";
import { formatSize } from "~/utils/format";
import type { CurrentDatabase } from "../../../contract/database";

type TableRow = CurrentDatabase["tables"][number];

/** The database Ferry runs on: kind, version, location (never a password), size, where the choice comes from, rows per table. */
export function CurrentCard({ current, pendingActions }: { current: CurrentDatabase; pendingActions?: ReactNode }) {
  const { t } = useTranslation();
  const facts: Fact[] = [
    [t("admin.database.kind"), t(`admin.database.kind.${current.dialect}`)],
    [t("admin.database.version"), current.version],
    [t("admin.database.location"), current.location],
    [t("admin.database.size"), current.size === null ? t("admin.database.size.unknown") : formatSize(current.size)],
    [t("admin.database.source"), t(current.switched ? "admin.database.source.switched" : "admin.database.source.configured")],
  ];
  const columns: Column<TableRow>[] = [
    { title: t("admin.database.table"), dataIndex: "name", sort: true },
    { title: t("admin.database.table.rows"), dataIndex: "rows", sort: true },
  ];
  return (
    <section aria-labelledby="database-current" className="flex flex-col gap-3 rounded border border-gray-200 bg-white p-4">
      <h2 id="database-current" className="text-base font-semibold text-gray-900">
        {t("admin.database.current")}
      </h2>
      <Facts rows={facts} />
      {current.pending && (
        <div className="flex flex-col gap-2 rounded border border-amber-300 bg-amber-50 p-3">
          <p role="status" className="text-sm text-amber-900">
            {t("admin.database.pending", { location: current.pending.location })}
          </p>
          {pendingActions}
        </div>
      )}
      {current.lastFailure && (
        <p role="alert" className="rounded border border-red-300 bg-red-50 p-2 text-sm text-red-800">
          {t("admin.database.last-failure", { location: current.lastFailure.location, message: current.lastFailure.message })}
        </p>
      )}
      <details>
        <summary className="cursor-pointer text-sm text-primary">{t("admin.database.rows")}</summary>
        <div className="mt-2 max-w-xl">
          <Table label={t("admin.database.rows")} columns={columns} data={current.tables} rowKey="name" sortLocally defaultSort={{ key: "name", order: "ascending" }} />
        </div>
      </details>
    </section>
  );
}
