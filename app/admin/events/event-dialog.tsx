import { getFormProps, useForm, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { Form, useFetcher } from "@remix-run/react";
import { useEffect } from "react";
import { useTranslation } from "react-i18next";
import { FormError } from "~/components/ui/form-error";
import { DialogFooter, Modal } from "~/components/ui/modal";
import { NumberInput } from "~/components/ui/number-input";
import { SelectInput } from "~/components/ui/select-input";
import { TextInput } from "~/components/ui/text-input";
import { useToast } from "~/components/ui/toast";
import { EVENT_COMMAND_LINE_MAX, EVENT_EXECUTABLE_MAX, EVENT_NAME_MAX, EVENT_OPERATIONS, EVENT_REMARK_MAX, EVENT_STATUSES, EVENT_TYPES, type AdminEvent } from "../../../contract/events";
import { eventFormSchema } from "./schema";

export const EVENT_DIALOG_WIDTH = 640;
export const EVENTS_PATH = "/admin/settings/events";

/** What the form starts with: the event's values, or (a refused save without JavaScript) what was typed. */
export interface EventDraft {
  name: string;
  type: string;
  operation: string;
  status: string;
  executable: string;
  commandLine: string;
  waitSeconds: string;
  remark: string;
}

export function draftOf(event: AdminEvent | null, binDir: string | null): EventDraft {
  return {
    name: event?.name ?? "",
    type: event?.type ?? "uploaded",
    operation: event?.operation ?? "run_executable",
    status: event?.status ?? "activated",
    executable: event?.executable ?? (binDir ? `${binDir.replace(/\/$/, "")}/` : ""),
    commandLine: event?.commandLine ?? "{path}",
    waitSeconds: String(event?.waitSeconds ?? 30),
    remark: event?.remark ?? "",
  };
}

function useEventForm(id: string, lastResult: SubmissionResult<string[]> | undefined) {
  return useForm({
    id,
    lastResult,
    onValidate: ({ formData }) => parseWithZod(formData, { schema: eventFormSchema }),
    shouldValidate: "onBlur",
    shouldRevalidate: "onInput",
  });
}

function useMessage() {
  const { t, i18n } = useTranslation();
  return (key?: string, vars?: Record<string, string>) => (key && i18n.exists(key) ? t(key, vars) : key);
}

/** The event's fields, shared by the dialog and the page without JavaScript. */
function EventFields({ draft, fields, event, binDir }: { draft: EventDraft; fields: ReturnType<typeof useEventForm>[1]; event: AdminEvent | null; binDir: string | null }) {
  const { t } = useTranslation();
  const message = useMessage();
  const dir = binDir ?? "—";
  return (
    <>
      <input type="hidden" name="intent" value="save" />
      {event && <input type="hidden" name="id" value={event.id} />}
      <TextInput label={t("admin.events.name")} name={fields.name.name} defaultValue={draft.name} required maxLength={EVENT_NAME_MAX} error={message(fields.name.errors?.[0])} />
      <div className="grid grid-cols-1 gap-4 sm:grid-cols-3">
        <SelectInput label={t("admin.events.type")} name={fields.type.name} defaultValue={draft.type} options={EVENT_TYPES.map((v) => ({ value: v, label: t(`admin.events.type.${v}`) }))} />
        <SelectInput label={t("admin.events.operation")} name={fields.operation.name} defaultValue={draft.operation} options={EVENT_OPERATIONS.map((v) => ({ value: v, label: t(`admin.events.operation.${v}`) }))} />
        <SelectInput label={t("admin.events.status")} name={fields.status.name} defaultValue={draft.status} options={EVENT_STATUSES.map((v) => ({ value: v, label: t(`admin.events.status.${v}`) }))} />
      </div>
      <TextInput
        label={t("admin.events.executable")}
        description={t("admin.events.executable.hint", { dir })}
        name={fields.executable.name}
        defaultValue={draft.executable}
        required
        maxLength={EVENT_EXECUTABLE_MAX}
        spellCheck={false}
        error={message(fields.executable.errors?.[0], { dir })}
      />
      <TextInput
        label={t("admin.events.command-line")}
        description={t("admin.events.command-line.hint")}
        name={fields.commandLine.name}
        defaultValue={draft.commandLine}
        maxLength={EVENT_COMMAND_LINE_MAX}
        spellCheck={false}
        error={message(fields.commandLine.errors?.[0])}
      />
      <NumberInput label={t("admin.events.wait")} description={t("admin.events.wait.hint")} name={fields.waitSeconds.name} defaultValue={draft.waitSeconds} maxLength={4} error={message(fields.waitSeconds.errors?.[0])} />
      <TextInput label={t("admin.events.remark")} name={fields.remark.name} defaultValue={draft.remark} maxLength={EVENT_REMARK_MAX} error={message(fields.remark.errors?.[0])} />
    </>
  );
}

function useFormErrors(errors: string[] | undefined, binDir: string | null) {
  const message = useMessage();
  return errors?.map((e) => message(e, { dir: binDir ?? "—" }) ?? e);
}

/** Add (event null) or edit an event, in a dialog. */
export function EventDialog({ open, event, binDir, onClose }: { open: boolean; event: AdminEvent | null; binDir: string | null; onClose: () => void }) {
  const { t } = useTranslation();
  const toast = useToast();
  const fetcher = useFetcher<{ submission?: SubmissionResult<string[]>; saved?: true }>();
  const reply = fetcher.data?.submission;
  const [form, fields] = useEventForm(`event-${event?.id ?? "new"}`, fetcher.state === "idle" ? reply : undefined);
  const saved = fetcher.state === "idle" && fetcher.data?.saved === true;
  useEffect(() => {
    if (saved) {
      toast.success(t("admin.events.saved"));
      onClose();
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once per answer, when the list is reloaded
  }, [fetcher.data, fetcher.state]);
  const formErrors = useFormErrors(form.errors, binDir);
  return (
    <Modal open={open} onClose={onClose} title={event ? t("admin.events.edit") : t("admin.events.add")} width={EVENT_DIALOG_WIDTH} footer={null}>
      <fetcher.Form method="post" action={EVENTS_PATH} {...getFormProps(form)} className="flex flex-col gap-4">
        <EventFields draft={draftOf(event, binDir)} fields={fields} event={event} binDir={binDir} />
        <FormError id={form.errorId} errors={formErrors} />
        <DialogFooter onCancel={onClose} busy={fetcher.state !== "idle"} />
      </fetcher.Form>
    </Modal>
  );
}

/** The same form where the page has no JavaScript: a section of the page, a plain POST answered with a redirect back to the list. */
export function EventPanel({
  event,
  binDir,
  back,
  action,
  lastResult,
}: {
  event: AdminEvent | null;
  binDir: string | null;
  back: string;
  action: string;
  lastResult: SubmissionResult<string[]> | undefined;
}) {
  const { t } = useTranslation();
  const [form, fields] = useEventForm(`event-${event?.id ?? "new"}-page`, lastResult);
  const typed = lastResult?.initialValue as Record<string, unknown> | undefined;
  const draft = draftOf(event, binDir);
  const shown: EventDraft = typed ? (Object.fromEntries(Object.entries(draft).map(([k, v]) => [k, typeof typed[k] === "string" ? (typed[k] as string) : v])) as unknown as EventDraft) : draft;
  const formErrors = useFormErrors(form.errors, binDir);
  return (
    <section aria-labelledby="event-panel-title" className="rounded border border-gray-200 bg-white p-4" style={{ maxWidth: EVENT_DIALOG_WIDTH }}>
      <h2 id="event-panel-title" className="mb-4 text-base font-semibold text-gray-900">
        {event ? t("admin.events.edit") : t("admin.events.add")}
      </h2>
      <Form method="post" action={action} {...getFormProps(form)} className="flex flex-col gap-4 text-sm text-gray-700">
        <input type="hidden" name="back" value={back} />
        <EventFields key={lastResult ? JSON.stringify(typed) : "draft"} draft={shown} fields={fields} event={event} binDir={binDir} />
        <FormError id={form.errorId} errors={formErrors} />
        <DialogFooter cancelHref={`${EVENTS_PATH}${back}`} />
      </Form>
    </section>
  );
}
