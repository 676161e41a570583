import { Form, Link } from "@remix-run/react";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { Button, ButtonLink } from "~/components/ui/button";
import { Modal } from "~/components/ui/modal";
import { Progress } from "~/components/ui/progress";
import { Table, type Column } from "~/components/ui/table";
import { useHydrated } from "~/utils/use-hydrated";
import type { CopyStatus } from "../../../contract/database";

type CopyTable = CopyStatus["tables"][number];

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

/** Restart now, after a confirmation (the kit's modal; without JavaScript a confirmation in the page). */
export function RestartNow({ asking }: { asking: boolean }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const [form, setForm] = useState<HTMLFormElement | null>(null);
  return (
    <div className="flex flex-col gap-2">
      <div className="flex flex-wrap gap-2">
        <Form method="get" action="/admin/settings/mysql">
          <Button
            type="submit"
            name="confirm"
            value="restart"
            onClick={(event) => {
              event.preventDefault();
              setOpen(true);
            }}
          >
            {t("admin.database.restart")}
          </Button>
        </Form>
        <Form method="post" action="/admin/settings/mysql">
          <Button type="submit" variant="outlined" name="intent" value="cancel">
            {t("admin.database.cancel")}
          </Button>
        </Form>
      </div>
      {asking && (
        <div role="group" aria-labelledby="database-restart-ask" className="rounded border border-amber-300 bg-amber-50 p-3 text-sm">
          <h3 id="database-restart-ask" className="font-semibold">
            {t("admin.database.restart.title")}
          </h3>
          <p className="my-2">{t("admin.database.restart.body")}</p>
          <Form method="post" action="/admin/settings/mysql" className="flex gap-2">
            <Button type="submit" name="intent" value="restart">
              {t("admin.database.restart")}
            </Button>
            <ButtonLink href="/admin/settings/mysql" variant="outlined">
              {t("global.cancel")}
            </ButtonLink>
          </Form>
        </div>
      )}
      <Form method="post" action="/admin/settings/mysql" ref={setForm} hidden>
        <input type="hidden" name="intent" value="restart" />
      </Form>
      <Modal
        open={open}
        onClose={() => setOpen(false)}
        title={t("admin.database.restart.title")}
        confirmLabel={t("admin.database.restart")}
        onConfirm={() => {
          setOpen(false);
          form?.requestSubmit();
        }}
      >
        <p className="text-sm text-gray-700">{t("admin.database.restart.body")}</p>
      </Modal>
    </div>
  );
}
