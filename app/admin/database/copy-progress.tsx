import { Form, Link } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { Button } from "~/components/ui/button";
import { ConfirmedAction } from "~/components/ui/confirmed-action";
import { Progress } from "~/components/ui/progress";
import { Table, type Column } from "~/components/ui/table";
import { useHydrated } from "~/utils/use-hydrated";
import type { CopyStatus } from "../../../contract/database";

type CopyTable = CopyStatus["tables"][number];

const PAGE = "/admin/settings/mysql";

/** Seconds as "1 min 20 s" / "1 分 20 秒". */
function useDuration() {
  const { t } = useTranslation();
  return (seconds: number) => {
    const s = Math.max(0, Math.round(seconds));
    return s < 60 ? t("admin.database.left.seconds", { s }) : t("admin.database.left.minutes", { m: Math.floor(s / 60), s: s % 60 });
  };
}

/** The running copy: a bar over every row, the table at hand, speed and time left (from the engine's own elapsed time). */
export function CopyRunning({ copy }: { copy: CopyStatus }) {
  const { t } = useTranslation();
  const duration = useDuration();
  const hydrated = useHydrated();
  const seconds = copy.elapsedMs / 1000;
  const speed = seconds > 0 ? copy.rowsDone / seconds : 0;
  const phase = copy.phase ?? "connecting";
  const detail =
    speed > 0 && copy.rowsTotal > 0
      ? t("admin.database.progress.detail", { done: copy.rowsDone, total: copy.rowsTotal, speed: Math.round(speed), left: duration((copy.rowsTotal - copy.rowsDone) / speed) })
      : t("admin.database.progress.detail.start", { done: copy.rowsDone, total: copy.rowsTotal });
  return (
    <div className="flex flex-col gap-2" aria-live="polite">
      <p className="text-sm text-gray-800">{t(`admin.database.phase.${phase}`, { table: copy.table ?? "" })}</p>
      <Progress label={t("admin.database.progress")} value={copy.rowsDone} max={copy.rowsTotal} detail={detail} />
      {!hydrated && (
        <Link to="/admin/settings/mysql" className="text-sm text-primary underline">
          {t("admin.database.refresh")}
        </Link>
      )}
    </div>
  );
}

/** Each table's rows copied of rows there, and whether its rows were found the same on both sides. */
export function CopyTables({ copy }: { copy: CopyStatus }) {
  const { t } = useTranslation();
  const columns: Column<CopyTable>[] = [
    { title: t("admin.database.table"), dataIndex: "name", sort: true },
    { title: t("admin.database.result.copied"), key: "copied", type: "custom", render: (row) => `${row.done} / ${row.total}` },
    { title: t("admin.database.result.verified"), key: "verified", type: "custom", render: (row) => (row.verified ? t("admin.database.result.yes") : t("admin.database.result.no")) },
  ];
  return (
    <details open={copy.state === "done"}>
      <summary className="cursor-pointer text-sm text-primary">{t("admin.database.result")}</summary>
      <div className="mt-2 max-w-2xl">
        <Table label={t("admin.database.result")} columns={columns} data={copy.tables} rowKey="name" sortLocally defaultSort={{ key: "name", order: "ascending" }} />
      </div>
    </details>
  );
}

/**
 * Restart now, after the kit's confirmation (ConfirmedAction: its dialog with JavaScript; without it
 * the unconfirmed post comes back as `?confirm=restart`, the question in the page); and cancelling the switch.
 */
export function RestartNow({ asking }: { asking: boolean }) {
  const { t } = useTranslation();
  return (
    <div className="flex flex-wrap items-start gap-2">
      <ConfirmedAction
        action={PAGE}
        fields={{ intent: "restart" }}
        label={t("admin.database.restart")}
        title={t("admin.database.restart.title")}
        message={t("admin.database.restart.body")}
        confirmLabel={t("admin.database.restart")}
        variant="contained"
        asking={asking}
        cancelHref={PAGE}
      />
      <Form method="post" action={PAGE}>
        <Button type="submit" variant="outlined" name="intent" value="cancel">
          {t("admin.database.cancel")}
        </Button>
      </Form>
    </div>
  );
}
