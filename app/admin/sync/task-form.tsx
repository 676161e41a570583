import { getFormProps, useForm, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { Form } from "@remix-run/react";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { PlainCheckbox } from "~/components/ui/checkbox";
import { FormError } from "~/components/ui/form-error";
import { DialogFooter } from "~/components/ui/modal";
import { NumberInput } from "~/components/ui/number-input";
import { SelectInput } from "~/components/ui/select-input";
import { TextInput } from "~/components/ui/text-input";
import { useHydrated } from "~/utils/use-hydrated";
import { wallClock } from "~/utils/time-zone";
import { useTimeZone } from "~/utils/use-time-zone";
import { SYNC_UNITS, type SyncTask } from "../../../contract/sync";
import { FREQUENCY_KINDS, MB, syncFormSchema } from "./schema";

export interface StorageOption {
  id: number;
  name: string;
}

const OPTIONS = [
  ["keepMtime", "keepMtime", "admin.sync.option.keep-mtime"],
  ["onlyTopLevel", "onlyTopLevel", "admin.sync.option.only-top-level"],
  ["deleteTarget", "deleteTargetWhenSourceDeleted", "admin.sync.option.delete-target"],
  ["deleteSource", "deleteSourceAfterSync", "admin.sync.option.delete-source"],
  ["twoWay", "twoWay", "admin.sync.option.two-way"],
] as const;

const pad = (n: number) => String(n).padStart(2, "0");

/** What the form starts with: the task's values (a datetime-local on the reader's clock for "once"), or a new task's defaults. */
function draftOf(task: SyncTask | null, timeZone: string) {
  const f = task?.frequency;
  let onceAt = "";
  if (f?.kind === "once") {
    const c = wallClock(f.at * 1000, timeZone);
    onceAt = `${c.year}-${pad(c.month)}-${pad(c.day)}T${pad(c.hour)}:${pad(c.minute)}`;
  }
  return {
    name: task?.name ?? "",
    sourceStorage: String(task?.source.storageId ?? 1),
    sourcePath: task?.source.path ?? "",
    targetStorage: String(task?.target.storageId ?? 1),
    targetPath: task?.target.path ?? "",
    frequencyKind: f?.kind ?? "manual",
    every: f?.kind === "interval" ? String(f.every) : "",
    unit: f?.kind === "interval" ? f.unit : "minutes",
    dailyAt: f?.kind === "daily" ? f.at : "",
    onceAt,
    updateMode: task?.updateMode ?? "overwrite",
    filters: task?.filters ?? "",
    skipOverSizeMb: String(Math.round((task?.skipOverSize ?? 0) / MB)),
  };
}

/**
 * Add (task null) or edit a sync task: a section of the page that posts to the route's action,
 * so it works with and without JavaScript (with it, conform checks each field as it is typed and
 * only the fields of the chosen frequency are shown).
 */
export function SyncTaskForm({
  task,
  storages,
  action,
  back,
  lastResult,
}: {
  task: SyncTask | null;
  storages: StorageOption[];
  action: string;
  back: string;
  lastResult: SubmissionResult<string[]> | undefined;
}) {
  const { t, i18n } = useTranslation();
  const hydrated = useHydrated();
  const timeZone = useTimeZone();
  const [form, fields] = useForm({
    id: `sync-${task?.id ?? "new"}`,
    lastResult,
    onValidate: ({ formData }) => parseWithZod(formData, { schema: syncFormSchema }),
    shouldValidate: "onBlur",
    shouldRevalidate: "onInput",
  });
  const typed = lastResult?.initialValue as Record<string, string | undefined> | undefined;
  const base = draftOf(task, timeZone);
  const value = (name: keyof typeof base) => (typed && typeof typed[name] === "string" ? typed[name]! : base[name]);
  const checked = (name: (typeof OPTIONS)[number][0], key: (typeof OPTIONS)[number][1]) => (typed ? typed[name] === "on" : (task?.options[key] ?? false));
  const [kind, setKind] = useState(value("frequencyKind"));
  const errorText = (key?: string) => (key && i18n.exists(key) ? t(key) : key);
  const storageOptions = storages.map((s) => ({ value: String(s.id), label: s.name }));
  const show = (k: string) => !hydrated || kind === k;
  const title = task ? t("admin.sync.edit") : t("admin.sync.add");
  const formErrors = form.errors?.map((e) => errorText(e) ?? e);
  return (
    <section aria-labelledby="sync-form-title" className="max-w-3xl rounded border border-gray-200 bg-white p-4">
      <h2 id="sync-form-title" className="mb-4 text-base font-semibold text-gray-900">
        {title}
      </h2>
      <Form method="post" action={action} {...getFormProps(form)} className="flex flex-col gap-4 text-sm text-gray-700" preventScrollReset>
        <input type="hidden" name="intent" value="save" />
        <input type="hidden" name="back" value={back} />
        {task && <input type="hidden" name="id" value={task.id} />}
        <TextInput label={t("admin.sync.name")} name={fields.name.name} defaultValue={value("name")} required maxLength={64} error={errorText(fields.name.errors?.[0])} />
        <div className="grid grid-cols-2 gap-4">
          <SelectInput label={t("admin.sync.source-storage")} name={fields.sourceStorage.name} defaultValue={value("sourceStorage")} options={storageOptions} />
          <TextInput
            label={t("admin.sync.source-path")}
            description={t("admin.sync.path.hint")}
            name={fields.sourcePath.name}
            defaultValue={value("sourcePath")}
            required
            maxLength={1024}
            error={errorText(fields.sourcePath.errors?.[0])}
          />
          <SelectInput label={t("admin.sync.target-storage")} name={fields.targetStorage.name} defaultValue={value("targetStorage")} options={storageOptions} />
          <TextInput
            label={t("admin.sync.target-path")}
            description={t("admin.sync.path.hint")}
            name={fields.targetPath.name}
            defaultValue={value("targetPath")}
            required
            maxLength={1024}
            error={errorText(fields.targetPath.errors?.[0])}
          />
        </div>
        <SelectInput
          label={t("admin.sync.frequency")}
          name={fields.frequencyKind.name}
          defaultValue={value("frequencyKind")}
          onChange={(event) => setKind(event.target.value)}
          options={FREQUENCY_KINDS.map((k) => ({ value: k, label: t(`admin.sync.frequency.${k}`) }))}
          className="max-w-xs"
        />
        {show("interval") && (
          <div className="grid grid-cols-2 gap-4">
            <NumberInput label={t("admin.sync.every")} name={fields.every.name} defaultValue={value("every")} maxLength={7} error={errorText(fields.every.errors?.[0])} />
            <SelectInput label={t("admin.sync.unit")} name={fields.unit.name} defaultValue={value("unit")} options={SYNC_UNITS.map((u) => ({ value: u, label: t(`admin.sync.unit.${u}`) }))} />
          </div>
        )}
        {show("daily") && (
          <TextInput label={t("admin.sync.daily-at")} type="time" name={fields.dailyAt.name} defaultValue={value("dailyAt")} className="max-w-xs" error={errorText(fields.dailyAt.errors?.[0])} />
        )}
        {show("once") && (
          <TextInput label={t("admin.sync.once-at")} type="datetime-local" name={fields.onceAt.name} defaultValue={value("onceAt")} className="max-w-xs" error={errorText(fields.onceAt.errors?.[0])} />
        )}
        <SelectInput
          label={t("admin.sync.update-mode")}
          name={fields.updateMode.name}
          defaultValue={value("updateMode")}
          options={(["overwrite", "append"] as const).map((m) => ({ value: m, label: t(`admin.sync.update-mode.${m}`) }))}
        />
        <fieldset className="flex flex-col gap-2">
          <legend className="mb-1 text-sm font-medium text-gray-800">{t("admin.sync.options")}</legend>
          {OPTIONS.map(([name, key, label]) => (
            <PlainCheckbox key={name} label={t(label)} name={name} value="on" defaultChecked={checked(name, key)} />
          ))}
        </fieldset>
        <TextInput label={t("admin.sync.filters")} description={t("admin.sync.filters.hint")} name={fields.filters.name} defaultValue={value("filters")} maxLength={1024} error={errorText(fields.filters.errors?.[0])} />
        <NumberInput
          label={t("admin.sync.skip-size")}
          description={t("admin.sync.skip-size.hint")}
          name={fields.skipOverSizeMb.name}
          defaultValue={value("skipOverSizeMb")}
          maxLength={10}
          className="max-w-xs"
          error={errorText(fields.skipOverSizeMb.errors?.[0])}
        />
        <FormError id={form.errorId} errors={formErrors} />
        <DialogFooter cancelHref={`/admin/transfer/sync${back}`} />
      </Form>
    </section>
  );
}
