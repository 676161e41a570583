import { getFormProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { useFetcher } from "@remix-run/react";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { Button } from "~/components/ui/button";
import { Checkbox } from "~/components/ui/checkbox";
import { FormError } from "~/components/ui/form-error";
import { Modal } from "~/components/ui/modal";
import { NumberInput } from "~/components/ui/number-input";
import { TextInput } from "~/components/ui/text-input";
import { useToast } from "~/components/ui/toast";
import type { action } from "~/routes/admin.groups";
import type { AdminGroup } from "../../../contract/admin";
import { MemberPicker, type PickedMember } from "./member-picker";
import { GB, groupFormSchema, levelOf } from "./schema";

export const GROUP_DIALOG_WIDTH = 640;

/** Add (group null) or edit a group space: its settings and its associated users, saved together. */
export function GroupDialog({ open, group, onClose }: { open: boolean; group: AdminGroup | null; onClose: () => void }) {
  const { t, i18n } = useTranslation();
  const toast = useToast();
  const fetcher = useFetcher<typeof action>();
  const reply = fetcher.data && "submission" in fetcher.data ? fetcher.data.submission : undefined;
  const [form, fields] = useForm({
    id: `group-${group?.id ?? "new"}`,
    lastResult: fetcher.state === "idle" ? reply : undefined,
    onValidate: ({ formData }) => parseWithZod(formData, { schema: groupFormSchema }),
    shouldValidate: "onBlur",
    shouldRevalidate: "onInput",
  });
  const [members, setMembers] = useState<PickedMember[]>([]);
  useEffect(() => {
    if (open) setMembers((group?.members ?? []).map((m) => ({ userId: m.userId, account: m.account, level: levelOf(m.groupPermission) })));
  }, [open, group]);
  const saved = fetcher.state === "idle" && fetcher.data && "saved" in fetcher.data && fetcher.data.saved;
  useEffect(() => {
    if (saved) {
      toast.success(t("admin.groups.saved"));
      onClose();
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once per answer, when the list is reloaded
  }, [fetcher.data, fetcher.state]);
  const errorText = (key?: string) => (key && i18n.exists(key) ? t(key) : key);
  const formErrors = form.errors?.map((e) => errorText(e) ?? e);
  return (
    <Modal open={open} onClose={onClose} title={group ? t("admin.groups.edit") : t("admin.groups.add")} width={GROUP_DIALOG_WIDTH} footer={null}>
      <fetcher.Form method="post" action="/admin/groups" {...getFormProps(form)} className="flex flex-col gap-4">
        <input type="hidden" name="intent" value="save" />
        {group && <input type="hidden" name="id" value={group.id} />}
        <TextInput label={t("admin.groups.name")} name={fields.name.name} defaultValue={group?.name ?? ""} required maxLength={64} error={fields.name.errors?.[0]} />
        <TextInput
          label={t("admin.groups.home")}
          description={t("admin.groups.home.hint")}
          name={fields.home.name}
          defaultValue={group?.home ?? ""}
          maxLength={1024}
          error={errorText(fields.home.errors?.[0])}
        />
        <div className="grid grid-cols-2 gap-4">
          <NumberInput
            label={t("admin.groups.upload-speed")}
            description={t("admin.groups.speed.hint")}
            name={fields.maxUploadSpeed.name}
            defaultValue={String(group?.maxUploadSpeed ?? 0)}
            maxLength={6}
            error={fields.maxUploadSpeed.errors?.[0]}
          />
          <NumberInput
            label={t("admin.groups.download-speed")}
            description={t("admin.groups.speed.hint")}
            name={fields.maxDownloadSpeed.name}
            defaultValue={String(group?.maxDownloadSpeed ?? 0)}
            maxLength={6}
            error={fields.maxDownloadSpeed.errors?.[0]}
          />
        </div>
        <NumberInput
          label={t("admin.groups.quota")}
          description={t("admin.groups.quota.hint")}
          name={fields.quotaGb.name}
          defaultValue={String(Math.round((group?.quota ?? 0) / GB))}
          maxLength={7}
          error={fields.quotaGb.errors?.[0]}
        />
        <Checkbox label={t("admin.groups.upload-new-only")} name={fields.uploadNewOnly.name} value="on" defaultChecked={group?.uploadNewOnly ?? false} />
        <MemberPicker members={members} onChange={setMembers} />
        <FormError id={form.errorId} errors={formErrors} />
        <div className="flex justify-end gap-2">
          <Button variant="outlined" onClick={onClose}>
            {t("global.cancel")}
          </Button>
          <Button type="submit" loading={fetcher.state !== "idle"}>
            {t("global.confirm")}
          </Button>
        </div>
      </fetcher.Form>
    </Modal>
  );
}
