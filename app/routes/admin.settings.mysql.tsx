import { type ActionFunctionArgs, data, type LoaderFunctionArgs, redirect } from "@remix-run/node";
import { useActionData, useLoaderData, useRevalidator } from "@remix-run/react";
import { useEffect } from "react";
import { useTranslation } from "react-i18next";
import { cancelPending, readDatabase, restart, submitTarget } from "~/admin/database/actions.server";
import { CopyRunning, CopyTables, RestartNow } from "~/admin/database/copy-progress";
import { CurrentCard } from "~/admin/database/current-card";
import { TargetForm } from "~/admin/database/target-form";
import { readForm } from "~/utils/form.server";
import { requireAdmin } from "~/utils/session.server";
import { ErrorCode } from "../../contract/errors";

/**
 * Database, the spec's "MySQL" settings (admin document, sections 3, 4, 8; docs/database.md): the
 * database Ferry runs on, a MariaDB/MySQL or PostgreSQL target tested and copied into, its progress,
 * and the restart that switches (1077).
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const admin = await requireAdmin(request);
  const database = await readDatabase(admin);
  const confirmRestart = new URL(request.url).searchParams.get("confirm") === "restart";
  return data({ database, confirmRestart }, { headers: { "Set-Cookie": await admin.commit() } });
}

export async function action({ request }: ActionFunctionArgs) {
  const form = await readForm(request);
  const admin = await requireAdmin(request);
  const intent = form.get("intent");
  // Only a confirmed restart acts; without JavaScript the unconfirmed one comes back as the question in the page.
  if (intent === "restart" && form.get("confirmed") !== "1") throw redirect("/admin/settings/mysql?confirm=restart", { headers: { "Set-Cookie": await admin.commit() } });
  const answer = intent === "restart" ? await restart(admin) : intent === "cancel" ? await cancelPending(admin) : await submitTarget(admin, form);
  return data(answer, { headers: { "Set-Cookie": await admin.commit() } });
}

export default function DatabasePage() {
  const { database, confirmRestart } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const { t } = useTranslation();
  const revalidator = useRevalidator();
  const restartAsked = answer?.intent === "restart" && !!answer.result.status;
  const restarting = restartAsked && (database.unreachable || database.current.pending !== null);
  const copy = database.unreachable ? null : database.copy;
  const following = copy?.state === "running" || restarting || database.unreachable;
  // While a copy runs or the server restarts, the page looks again every second.
  useEffect(() => {
    if (!following || revalidator.state !== "idle") return;
    const timer = setTimeout(() => revalidator.revalidate(), 1000);
    return () => clearTimeout(timer);
  }, [following, revalidator, database]);
  const target = answer?.intent === "target" ? answer : undefined;
  return (
    <div className="flex max-w-5xl flex-col gap-6">
      <div className="flex flex-col gap-1">
        <h1 className="text-lg font-semibold text-gray-900">{t("admin.menu.settings.mysql")}</h1>
        <p className="text-sm text-gray-600">{t("admin.database.intro")}</p>
      </div>
      {restarting || database.unreachable ? (
        <p role="status" className="rounded border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900">
          {t("admin.database.restarting")}
        </p>
      ) : (
        <>
          <CurrentCard
            current={database.current}
            pendingActions={
              <>
                <RestartNow asking={confirmRestart} />
                {answer?.intent === "restart" && answer.result.code !== undefined && (
                  <p role="alert" className="text-sm text-red-700">
                    {t("admin.database.restart.refused", { message: t(`error.${answer.result.code}`, { defaultValue: String(answer.result.code) }) })}
                  </p>
                )}
              </>
            }
          />
          {copy && copy.state !== "idle" && (
            <section aria-labelledby="database-copy" className="flex flex-col gap-3 rounded border border-gray-200 bg-white p-4">
              <h2 id="database-copy" className="text-base font-semibold text-gray-900">
                {t("admin.database.progress")}
              </h2>
              {copy.state === "running" && <CopyRunning copy={copy} />}
              {copy.state === "done" && (
                <p role="status" className="text-sm text-green-700">
                  {t("admin.database.done", { rows: copy.rowsDone, tables: copy.tables.length, location: copy.target ?? "" })}
                </p>
              )}
              {copy.state === "failed" && (
                <div role="alert" className="flex flex-col gap-1 text-sm text-red-700">
                  <p>{t("admin.database.failed")}</p>
                  <p>{copy.code === ErrorCode.MysqlSwitchError ? t(`error.${copy.code}`, { reason: copy.message ?? "" }) : t(`error.${copy.code}`, { defaultValue: copy.message ?? "" })}</p>
                </div>
              )}
              {copy.tables.length > 0 && copy.state !== "running" && <CopyTables copy={copy} />}
            </section>
          )}
          <section aria-labelledby="database-target-title" className="flex flex-col gap-3 rounded border border-gray-200 bg-white p-4">
            <h2 id="database-target-title" className="text-base font-semibold text-gray-900">
              {t("admin.database.target")}
            </h2>
            <p className="text-sm text-gray-600">{t("admin.database.target.note")}</p>
            <TargetForm
              lastResult={target?.submission}
              tested={target && "tested" in target ? target.tested : undefined}
              refusal={target && "refusal" in target ? target.refusal : undefined}
              ask={target && "ask" in target && target.ask ? target.ask : null}
              disabled={copy?.state === "running"}
            />
          </section>
        </>
      )}
    </div>
  );
}
