import { FormProvider, getFormProps, useForm, type DefaultValue, type SubmissionResult } from "@conform-to/react";
import { Form, useNavigation } from "@remix-run/react";
import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { useHydrated } from "~/utils/use-hydrated";
import { Button } from "~/components/ui/button";
import * as z from "zod";
import { FieldItem, HORIZONTAL_FIELD_SPAN, parseFormData, type FormField } from "~/components/ui/form";
import { Steps } from "~/components/ui/steps";
import { SelectInput } from "~/components/ui/select-input";
import { TextInput } from "~/components/ui/text-input";
import type { StorageChoice } from "../../../contract/storage";
import { PERMISSION_NAMES, STEP_KEYS, type UserFormMode } from "./user-form";

export type UserStepsProps = {
  mode: UserFormMode;
  /** The storages a home or a virtual directory can be on (GET /api/admin/storages/choices). */
  storages: StorageChoice[];
  action: string;
  step: number;
  defaultValue: Record<string, unknown>;
  lastResult?: SubmissionResult<string[]> | null;
};

type VirtualRow = { alias?: string; path?: string; storageId?: string };

/** The add / edit user form in the kit's 4 steps: General, Storage, Transfer, Security (admin spec section 2). */
export function UserSteps({ mode, storages, action, step, defaultValue, lastResult }: UserStepsProps) {
  const { t, i18n } = useTranslation();
  const navigation = useNavigation();
  const hydrated = useHydrated();
  // Fields typed in since the server's last answer: their errors from that answer are left behind.
  const edited = useRef(new Set<string>());
  useEffect(() => edited.current.clear(), [lastResult]);
  const [form, fields] = useForm<Record<string, unknown>>({
    id: `user-${mode}`,
    lastResult,
    defaultValue: defaultValue as DefaultValue<Record<string, unknown>>,
    // The server checks the form (each step's post). In the browser, an error of its answer goes as
    // soon as its field is typed in, and a button press is never checked: a check on leaving a field
    // used to clear the errors as the pointer went down on Create, the buttons moved up a line under
    // it, and the click landed beside them (after a refused Create, Create and Back posted nothing).
    shouldValidate: "onInput",
    onValidate: ({ formData }) => parseFormData(formData, stillRefused(lastResult, edited.current, formData.get("__intent__"))),
  });
  const vdirs = fields.virtualDirectories as unknown as { errors?: string[] };
  const message = (text: string) => (i18n.exists(text) ? t(text) : text);
  const field = (name: string, type: FormField["type"], extra: Partial<FormField> = {}): FormField => ({ name, type, label: t(`admin.users.field.${name}`), ...extra });
  const options = (prefix: string, values: readonly string[]) => values.map((value) => ({ value, label: t(`${prefix}.${value}`) }));
  const row = (f: FormField, required = false) => <FieldItem key={f.name} field={f} layout="horizontal" required={required} />;

  const general = (
    <>
      {row(field("fullname", "input"))}
      {mode === "create" ? row(field("account", "input"), true) : null}
      {row(field("email", "input"))}
      {row(
        mode === "create"
          ? field("password", "password")
          : { name: "password", type: "password", label: t("admin.users.field.password.edit"), description: t("admin.users.field.password.edit.hint") },
        mode === "create",
      )}
      {row(field("needUpdatePwd", "switch"))}
      {row(field("accountType", "radioGroup", { options: options("admin.users.type", ["2", "4", "5", "6"]) }))}
    </>
  );

  // The rows the server last got back (conform's field keeps the first default), else the defaults.
  const answered = (lastResult?.initialValue as { virtualDirectories?: VirtualRow[] } | null | undefined)?.virtualDirectories;
  const initialRows = (answered ?? (defaultValue.virtualDirectories as VirtualRow[] | undefined) ?? []).filter((r) => r && (r.alias || r.path));
  const [rows, setRows] = useState<{ key: number; value: VirtualRow }[]>(() => [...initialRows, {}].map((value, key) => ({ key, value })));
  const nextKey = useRef(rows.length);
  // Each answer of the server shows the rows it got back, and one blank row to fill.
  useEffect(() => {
    if (!lastResult) return;
    setRows([...initialRows, {}].map((value) => ({ key: nextKey.current++, value })));
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only a new answer resets the rows
  }, [lastResult]);
  const rowError = (index: number, part: "alias" | "path") => form.allErrors[`virtualDirectories[${index}].${part}`]?.[0];
  const storageName = (s: StorageChoice) => (s.isDefault ? t("admin.users.field.storageId.default", { name: s.name }) : s.name);
  const storageOptions = storages.map((s) => ({ value: String(s.id), label: storageName(s) }));
  const storage = (
    <>
      {row(
        field("storageId", "select", {
          description: t("admin.users.field.storageId.hint"),
          options: mode === "create" ? [{ value: "", label: t("admin.users.field.storageId.auto") }, ...storageOptions] : storageOptions,
        }),
      )}
      {row(field("home", "input", { description: t("admin.users.field.home.hint") }))}
      <fieldset className="grid grid-cols-[repeat(24,minmax(0,1fr))] gap-x-3">
        <legend className="sr-only">{t("admin.users.field.virtual")}</legend>
        <span aria-hidden="true" className="col-span-4 py-1.5 text-right text-sm font-medium text-gray-800">
          {t("admin.users.field.virtual")}
        </span>
        {/* Tailwind 3 has no col-span-20: the kit's field span, as FieldItem places it. */}
        <div style={{ gridColumn: `span ${HORIZONTAL_FIELD_SPAN} / span ${HORIZONTAL_FIELD_SPAN}` }} className="flex flex-col gap-2">
          <p className="text-xs text-gray-600">{t("admin.users.field.virtual.hint")}</p>
          {rows.map((item, index) => {
            const n = index + 1;
            return (
              <div key={item.key} className="flex items-end gap-2">
                <TextInput
                  className="flex-1"
                  label={t("admin.users.field.virtual.alias", { n })}
                  name={`virtualDirectories[${index}].alias`}
                  defaultValue={item.value.alias ?? ""}
                  error={rowError(index, "alias")}
                  placeholder="/Projects"
                />
                <TextInput
                  className="flex-1"
                  label={t("admin.users.field.virtual.path", { n })}
                  name={`virtualDirectories[${index}].path`}
                  defaultValue={item.value.path ?? ""}
                  error={rowError(index, "path")}
                  placeholder="/projects"
                />
                <SelectInput
                  className="flex-1"
                  label={t("admin.users.field.virtual.storage", { n })}
                  name={`virtualDirectories[${index}].storageId`}
                  defaultValue={item.value.storageId ?? ""}
                  options={[{ value: "", label: t("admin.users.field.virtual.storage.home") }, ...storageOptions]}
                />
                {hydrated && (
                  <Button variant="outlined" onClick={() => setRows((list) => list.filter((r) => r.key !== item.key))} aria-label={t("admin.users.field.virtual.remove", { n })}>
                    {t("global.delete")}
                  </Button>
                )}
              </div>
            );
          })}
          {hydrated && rows.length < 10 && (
            <div>
              <Button variant="outlined" size="small" onClick={() => setRows((list) => [...list, { key: nextKey.current++, value: {} }])}>
                {t("admin.users.field.virtual.add")}
              </Button>
            </div>
          )}
          {vdirs.errors?.length ? (
            <div role="alert" className="text-xs text-red-600">
              {vdirs.errors.map((text) => (
                <p key={text}>{message(text)}</p>
              ))}
            </div>
          ) : null}
        </div>
      </fieldset>
      {row(field("forbiddenPaths", "textarea", { label: t("admin.users.field.forbidden"), description: t("admin.users.field.forbidden.hint"), placeholder: "/private" }))}
      {row(field("quota", "positive", { description: t("admin.users.field.quota.hint") }))}
    </>
  );

  const transfer = (
    <>
      {row(field("permission", "checkboxGroup", { options: PERMISSION_NAMES.map((name) => ({ value: name, label: t(`admin.users.permission.${name}`) })) }))}
      {row(field("uploadNewOnly", "switch"))}
      {row(field("maxUploadSpeed", "positive", { description: t("admin.users.field.speed.hint") }))}
      {row(field("maxDownloadSpeed", "positive", { description: t("admin.users.field.speed.hint") }))}
      {row(field("fileFormatMode", "radioGroup", { options: options("admin.users.format", ["0", "1", "2"]) }))}
      {row(field("fileFormats", "input", { description: t("admin.users.field.fileFormats.hint"), placeholder: "jpg;png;pdf" }))}
      {row(field("forbidClientFilterSwitch", "switch"))}
      {row(field("transIgnoreRegSwitch", "switch"))}
      {row(field("transIgnoreReg", "input", { description: t("admin.users.field.transIgnoreReg.hint"), placeholder: "*.tmp;~*" }))}
      {row(field("transIgnoreSizeSwitch", "switch"))}
      {row(field("transIgnoreSize", "positive"))}
    </>
  );

  const security = (
    <>
      {row(field("ipWhitelist", "textarea", { description: t("admin.users.field.ipWhitelist.hint"), placeholder: "10.80.90.[1-100];10.0.0.0/8" }))}
      {row(field("emailSenderType", "radioGroup", { options: options("admin.users.sender", ["0", "1", "2"]) }))}
      {row(field("notifyAdmin", "switch"))}
      {row(field("shareEmailMode", "radioGroup", { options: options("admin.users.share", ["0", "1"]) }))}
    </>
  );

  const content = [general, storage, transfer, security];
  return (
    <FormProvider context={form.context}>
      <Form method="post" action={action} {...getFormProps(form)} className="flex flex-col gap-4">
        <input type="hidden" name="current" value={step} />
        {form.errors?.length ? (
          <div id={form.errorId} role="alert" className="text-sm text-red-600">
            {form.errors.map((text) => (
              <p key={text}>{message(text)}</p>
            ))}
          </div>
        ) : null}
        <Steps
          steps={STEP_KEYS.map((key, index) => ({ key, title: t(`admin.users.step.${key}`), content: content[index] }))}
          current={step}
          label={t("admin.users.steps")}
          finishLabel={mode === "create" ? t("admin.users.create") : t("admin.users.save")}
          skippable
          busy={navigation.state === "submitting"}
        />
      </Form>
    </FormProvider>
  );
}

/** "virtualDirectories[0].alias" → ["virtualDirectories", 0, "alias"]. */
const pathOf = (name: string) => name.split(/\.|\[(\d+)\]/).filter((part) => part !== undefined && part !== "").map((part) => (/^\d+$/.test(part) ? Number(part) : part));
const related = (a: string, b: string) => a === b || a.startsWith(`${b}.`) || a.startsWith(`${b}[`) || b.startsWith(`${a}.`) || b.startsWith(`${a}[`);

/**
 * The browser's check while a field is typed in (a "validate" intent): the field errors of the
 * server's last answer, less those of the fields typed in since. A submit is not checked here.
 */
function stillRefused(lastResult: SubmissionResult<string[]> | null | undefined, edited: Set<string>, intent: FormDataEntryValue | null) {
  if (typeof intent !== "string") return z.looseObject({});
  try {
    const name = (JSON.parse(intent) as { type?: string; payload?: { name?: string } }).payload?.name;
    if (name) edited.add(name);
  } catch {
    // Not an intent of conform's: nothing typed.
  }
  const left = Object.entries(lastResult?.error ?? {}).filter(([name, messages]) => name !== "" && messages?.length && ![...edited].some((e) => related(e, name)));
  return z.looseObject({}).superRefine((_, ctx) => {
    for (const [name, messages] of left) for (const message of messages ?? []) ctx.addIssue({ code: "custom", path: pathOf(name), message });
  });
}
