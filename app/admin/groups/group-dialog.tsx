import { getFormProps, useForm, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { Form, useFetcher } from "@remix-run/react";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { Checkbox, PlainCheckbox } from "~/components/ui/checkbox";
import { FormError } from "~/components/ui/form-error";
import { DialogFooter, Modal } from "~/components/ui/modal";
import { NumberInput } from "~/components/ui/number-input";
import { SelectInput } from "~/components/ui/select-input";
import { TextInput } from "~/components/ui/text-input";
import { useToast } from "~/components/ui/toast";
import type { action } from "~/routes/admin.groups";
import type { AdminGroup } from "../../../contract/admin";
import type { StorageChoice } from "../../../contract/storage";
import { MemberPicker, PlainMembers, type PickedMember } from "./member-picker";
import { GB, groupFormSchema, levelOf } from "./schema";

export const GROUP_DIALOG_WIDTH = 640;

/** What the form starts with: the group's values, or (without JavaScript, after Find users) what was typed. */
export interface GroupDraft {
  name: string;
  home: string;
  storageId: string;
  maxUploadSpeed: string;
  maxDownloadSpeed: string;
  quotaGb: string;
  uploadNewOnly: boolean;
  members: PickedMember[];
}

export function draftOf(group: AdminGroup | null): GroupDraft {
  return {
    name: group?.name ?? "",
    home: group?.home ?? "",
    storageId: group ? String(group.storageId) : "",
    maxUploadSpeed: String(group?.maxUploadSpeed ?? 0),
    maxDownloadSpeed: String(group?.maxDownloadSpeed ?? 0),
    quotaGb: String(Math.round((group?.quota ?? 0) / GB)),
    uploadNewOnly: group?.uploadNewOnly ?? false,
    members: (group?.members ?? []).map((m) => ({ userId: m.userId, account: m.account, level: levelOf(m.groupPermission) })),
  };
}

function useGroupForm(id: string, lastResult: SubmissionResult<string[]> | undefined) {
  return useForm({
    id,
    lastResult,
    onValidate: ({ formData }) => parseWithZod(formData, { schema: groupFormSchema }),
    shouldValidate: "onBlur",
    shouldRevalidate: "onInput",
  });
}

const SPEEDS = [
  ["maxUploadSpeed", "admin.groups.upload-speed"],
  ["maxDownloadSpeed", "admin.groups.download-speed"],
] as const;

/** The group's settings, shared by the dialog and the page without JavaScript. */
function GroupFields({
  draft,
  fields,
  group,
  storages,
  plain = false,
}: {
  draft: GroupDraft;
  fields: ReturnType<typeof useGroupForm>[1];
  group: AdminGroup | null;
  storages: StorageChoice[];
  plain?: boolean;
}) {
  const Tick = plain ? PlainCheckbox : Checkbox;
  const { t, i18n } = useTranslation();
  const errorText = (key?: string) => (key && i18n.exists(key) ? t(key) : key);
  return (
    <>
      <input type="hidden" name="intent" value="save" />
      {group && <input type="hidden" name="id" value={group.id} />}
      <TextInput label={t("admin.groups.name")} name={fields.name.name} defaultValue={draft.name} required maxLength={64} error={fields.name.errors?.[0]} />
      <SelectInput
        label={t("admin.groups.storage")}
        name={fields.storageId.name}
        defaultValue={draft.storageId}
        options={[
          ...(group ? [] : [{ value: "", label: t("admin.groups.storage.auto") }]),
          ...storages.map((s) => ({ value: String(s.id), label: s.isDefault ? t("admin.groups.storage.default", { name: s.name }) : s.name })),
        ]}
      />
      <TextInput
        label={t("admin.groups.home")}
        description={t("admin.groups.home.hint")}
        name={fields.home.name}
        defaultValue={draft.home}
        maxLength={1024}
        error={errorText(fields.home.errors?.[0])}
      />
      <div className="grid grid-cols-2 gap-4">
        {SPEEDS.map(([name, label]) => (
          <NumberInput
            key={name}
            label={t(label)}
            description={t("admin.groups.speed.hint")}
            name={fields[name].name}
            defaultValue={draft[name]}
            maxLength={6}
            error={fields[name].errors?.[0]}
          />
        ))}
      </div>
      <NumberInput
        label={t("admin.groups.quota")}
        description={t("admin.groups.quota.hint")}
        name={fields.quotaGb.name}
        defaultValue={draft.quotaGb}
        maxLength={7}
        error={fields.quotaGb.errors?.[0]}
      />
      <Tick label={t("admin.groups.upload-new-only")} name={fields.uploadNewOnly.name} value="on" defaultChecked={draft.uploadNewOnly} />
    </>
  );
}

function useFormErrors(errors: string[] | undefined) {
  const { t, i18n } = useTranslation();
  return errors?.map((e) => (i18n.exists(e) ? t(e) : e));
}

/** Add (group null) or edit a group space: its settings and its associated users, saved together. */
export function GroupDialog({ open, group, storages, onClose }: { open: boolean; group: AdminGroup | null; storages: StorageChoice[]; onClose: () => void }) {
  const { t } = useTranslation();
  const toast = useToast();
  const fetcher = useFetcher<typeof action>();
  const reply = fetcher.data && "submission" in fetcher.data ? fetcher.data.submission : undefined;
  const [form, fields] = useGroupForm(`group-${group?.id ?? "new"}`, fetcher.state === "idle" ? reply : undefined);
  const [members, setMembers] = useState<PickedMember[]>([]);
  useEffect(() => {
    if (open) setMembers(draftOf(group).members);
  }, [open, group]);
  const saved = fetcher.state === "idle" && fetcher.data && "saved" in fetcher.data && fetcher.data.saved;
  useEffect(() => {
    if (saved) {
      toast.success(t("admin.groups.saved"));
      onClose();
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once per answer, when the list is reloaded
  }, [fetcher.data, fetcher.state]);
  const formErrors = useFormErrors(form.errors);
  return (
    <Modal open={open} onClose={onClose} title={group ? t("admin.groups.edit") : t("admin.groups.add")} width={GROUP_DIALOG_WIDTH} footer={null}>
      <fetcher.Form method="post" action="/admin/groups" {...getFormProps(form)} className="flex flex-col gap-4">
        <GroupFields draft={draftOf(group)} fields={fields} group={group} storages={storages} />
        <MemberPicker members={members} onChange={setMembers} />
        <FormError id={form.errorId} errors={formErrors} />
        <DialogFooter onCancel={onClose} busy={fetcher.state !== "idle"} />
      </fetcher.Form>
    </Modal>
  );
}

/**
 * The same form where the page has no JavaScript (the dialog needs it): a section of the page, a
 * plain POST that answers with a redirect back to the list (`back`), Cancel a link there, and the
 * associated users as selects (read, full, remove) plus a Find users search that GETs the page
 * with what was typed so far.
 */
export function GroupPanel({
  group,
  draft,
  found,
  search,
  back,
  action,
  lastResult,
  storages,
}: {
  group: AdminGroup | null;
  storages: StorageChoice[];
  draft: GroupDraft;
  found: Array<{ id: number; account: string; email: string }> | null;
  search: string;
  back: string;
  /** Where it posts: this page's address, so a refused save comes back to the form. */
  action: string;
  lastResult: SubmissionResult<string[]> | undefined;
}) {
  const { t } = useTranslation();
  const [form, fields] = useGroupForm(`group-${group?.id ?? "new"}-page`, lastResult);
  // A refused save shows what was typed (the members stay as the form had them before).
  const typed = lastResult?.initialValue as Record<string, unknown> | undefined;
  const text = (name: keyof GroupDraft) => (typeof typed?.[name] === "string" ? (typed[name] as string) : (draft[name] as string));
  const shown: GroupDraft = typed
    ? { ...draft, name: text("name"), home: text("home"), storageId: text("storageId"), maxUploadSpeed: text("maxUploadSpeed"), maxDownloadSpeed: text("maxDownloadSpeed"), quotaGb: text("quotaGb"), uploadNewOnly: typed.uploadNewOnly === "on" }
    : draft;
  const formErrors = useFormErrors(form.errors);
  const title = group ? t("admin.groups.edit") : t("admin.groups.add");
  return (
    <section aria-labelledby="group-panel-title" className="rounded border border-gray-200 bg-white p-4" style={{ maxWidth: GROUP_DIALOG_WIDTH }}>
      <h2 id="group-panel-title" className="mb-4 text-base font-semibold text-gray-900">
        {title}
      </h2>
      <Form method="post" action={action} {...getFormProps(form)} className="flex flex-col gap-4 text-sm text-gray-700">
        <input type="hidden" name="back" value={back} />
        <input type="hidden" name="edit" value={group ? group.id : "new"} />
        <GroupFields key={lastResult ? JSON.stringify(typed) : "draft"} draft={shown} fields={fields} group={group} storages={storages} plain />
        <PlainMembers members={draft.members} found={found} search={search} />
        <FormError id={form.errorId} errors={formErrors} />
        <DialogFooter cancelHref={`/admin/groups${back}`} />
      </Form>
    </section>
  );
}
