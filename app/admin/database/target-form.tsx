import type { SubmissionResult } from "@conform-to/react";
import { Form, useSubmit } from "@remix-run/react";
import { useRef, useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { Button } from "~/components/ui/button";
import { FormBuilder, type FormField } from "~/components/ui/form";
import { Modal } from "~/components/ui/modal";
import { DEFAULT_PORTS, type TargetDialect, type TestResult } from "../../../contract/database";
import type { Refusal } from "./actions.server";
import { TARGET_DEFAULTS, targetFormSchema } from "./schema";

/** The target's answer under the form: a test's result, or the engine's refusal in the page's language. */
function Outcome({ tested, refusal }: { tested?: TestResult; refusal?: Refusal }) {
  const { t } = useTranslation();
  if (refusal)
    return (
      <p role="alert" className="text-sm text-red-700">
        {t(`error.${refusal.code}`, { ...refusal.vars, defaultValue: t("global.error.unknown", { code: refusal.code }) })}
      </p>
    );
  if (!tested) return null;
  const emptiness = tested.ferryTables === 0 ? t("admin.database.tested.empty") : tested.leftover ? t("admin.database.tested.leftover") : t("admin.database.tested.ferry", { count: tested.ferryTables });
  return (
    <p role="status" className={tested.ferryTables && !tested.leftover ? "text-sm text-amber-800" : "text-sm text-green-700"}>
      {t("admin.database.tested", { location: tested.location, version: tested.version })} {emptiness}
    </p>
  );
}

/**
 * The target: server kind, address, port, database, account, password, and "replace" (Ferry's tables
 * already there). Test connection answers at once; Copy and switch asks first (the kit's modal, or
 * without JavaScript a confirmation in the page) and then starts the copy.
 */
export function TargetForm({
  lastResult,
  tested,
  refusal,
  ask,
  disabled,
}: {
  lastResult?: SubmissionResult<string[]>;
  tested?: TestResult;
  refusal?: Refusal;
  /** Without JavaScript: the Copy asked, confirm in the page. */
  ask: { location: string } | null;
  /** A copy is running: no second one. */
  disabled: boolean;
}) {
  const { t } = useTranslation();
  const submit = useSubmit();
  const formRef = useRef<HTMLDivElement>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const fields: FormField[] = [
    {
      name: "dialect",
      label: t("admin.database.dialect"),
      type: "select",
      required: true,
      options: [
        { value: "mysql", label: t("admin.database.kind.mysql") },
        { value: "postgres", label: t("admin.database.kind.postgres") },
      ],
    },
    { name: "host", label: t("admin.database.host"), type: "input", required: true, placeholder: "db.example.com" },
    { name: "port", label: t("admin.database.port"), type: "inputNumber", required: true, description: t("admin.database.port.note") },
    { name: "database", label: t("admin.database.database"), type: "input", required: true, placeholder: "ferry" },
    { name: "user", label: t("admin.database.user"), type: "input", required: true },
    { name: "password", label: t("admin.database.password"), type: "password" },
    { name: "replace", label: t("admin.database.replace"), type: "checkbox", description: t("admin.database.replace.note") },
  ];
  const formElement = () => formRef.current?.querySelector("form") ?? null;
  // The default port follows the server kind while it is still the other kind's default.
  const follow = (event: FormEvent<HTMLDivElement>) => {
    const select = event.target as HTMLSelectElement;
    if (select.name !== "dialect") return;
    const port = formElement()?.elements.namedItem("port") as HTMLInputElement | null;
    if (port && Object.values(DEFAULT_PORTS).map(String).includes(port.value)) port.value = String(DEFAULT_PORTS[select.value as TargetDialect] ?? port.value);
  };
  return (
    <div ref={formRef} onChange={follow} className="flex flex-col gap-3">
      <FormBuilder
        id="database-target"
        schema={targetFormSchema}
        fields={fields}
        as={Form}
        method="post"
        action="/admin/settings/mysql"
        lastResult={lastResult}
        defaultValue={TARGET_DEFAULTS}
        onSubmit={(event, value) => {
          const submitter = (event.nativeEvent as SubmitEvent).submitter as HTMLButtonElement | null;
          if (submitter?.value !== "copy") return;
          // With JavaScript the confirmation is the kit's modal.
          event.preventDefault();
          setConfirming(`${value.dialect}://${value.host}:${value.port}/${value.database}`);
        }}
      >
        <div className="flex flex-wrap items-center gap-2">
          <Button type="submit" variant="outlined" name="intent" value="test" disabled={disabled}>
            {t("admin.database.test")}
          </Button>
          <Button type="submit" name="intent" value="copy" disabled={disabled}>
            {t("admin.database.copy")}
          </Button>
        </div>
        {ask && (
          <div role="group" aria-labelledby="database-copy-ask" className="mt-3 rounded border border-amber-300 bg-amber-50 p-3 text-sm">
            <h3 id="database-copy-ask" className="font-semibold">
              {t("admin.database.confirm.title", { location: ask.location })}
            </h3>
            <p className="my-2">{t("admin.database.confirm.body")}</p>
            <p className="mb-2 text-gray-700">{t("admin.database.confirm.nojs")}</p>
            <Button type="submit" name="intent" value="copy-confirmed">
              {t("admin.database.confirm.go")}
            </Button>
          </div>
        )}
        <div className="mt-2">
          <Outcome tested={tested} refusal={refusal} />
        </div>
      </FormBuilder>
      <Modal
        open={confirming !== null}
        onClose={() => setConfirming(null)}
        title={t("admin.database.confirm.title", { location: confirming ?? "" })}
        confirmLabel={t("admin.database.confirm.go")}
        onConfirm={() => {
          const form = formElement();
          setConfirming(null);
          if (!form) return;
          const data = new FormData(form);
          data.set("intent", "copy-confirmed");
          submit(data, { method: "post", action: "/admin/settings/mysql" });
        }}
      >
        <p className="text-sm text-gray-700">{t("admin.database.confirm.body")}</p>
      </Modal>
    </div>
  );
}
