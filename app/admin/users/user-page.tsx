import { Link } from "@remix-run/react";
import type { SubmissionResult } from "@conform-to/react";
import { useTranslation } from "react-i18next";
import { useHydrated } from "~/utils/use-hydrated";
import type { UserFormMode } from "./user-form";
import { UserSteps } from "./user-steps";
import type { StorageChoice } from "../../../contract/storage";

/** The add / edit page around the step form: heading, the way back, and what happens without JavaScript. */
export function UserFormPage({
  mode,
  account,
  storages,
  action,
  defaultValue,
  answer,
}: {
  mode: UserFormMode;
  storages: StorageChoice[];
  account?: string;
  action: string;
  defaultValue: Record<string, unknown>;
  answer?: { result: SubmissionResult<string[]>; step: number };
}) {
  const { t } = useTranslation();
  const hydrated = useHydrated();
  return (
    <section className="flex max-w-5xl flex-col gap-4">
      <Link to="/admin/users" className="text-sm text-primary hover:underline">
        ← {t("admin.users.back")}
      </Link>
      <h1 className="text-lg font-semibold">{mode === "create" ? t("admin.users.add") : t("admin.users.edit", { account })}</h1>
      {!hydrated && <p className="text-sm text-gray-600">{t("admin.users.script")}</p>}
      <UserSteps mode={mode} storages={storages} action={action} step={answer?.step ?? 0} defaultValue={defaultValue} lastResult={answer?.result ?? null} />
    </section>
  );
}
