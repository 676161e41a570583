import { getFormProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { useFetcher } from "@remix-run/react";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { Button } from "~/components/ui/button";
import { Callout } from "~/components/ui/callout";
import { PlainCheckbox } from "~/components/ui/checkbox";
import { FormError } from "~/components/ui/form-error";
import { Modal } from "~/components/ui/modal";
import { NumberInput } from "~/components/ui/number-input";
import { SelectInput } from "~/components/ui/select-input";
import { TextInput } from "~/components/ui/text-input";
import { useToast } from "~/components/ui/toast";
import type { action } from "~/routes/admin.storage";
import { type AdminStorage, CLEAN_AGES, CLEAN_BY, isS3Provider, STORAGE_PROVIDERS, type StorageProvider } from "../../../contract/storage";
import { AutoCleanPanel } from "./autoclean-panel";
import { SLICE_MIB_MAX, storageFormSchema } from "./schema";

export const STORAGE_DIALOG_WIDTH = 640;
const MIB = 1024 * 1024;

/**
 * Add (storage null) or edit a storage: the provider's fields, Test connection (writes, reads back
 * and deletes a probe file with what the form holds, the stored secrets filling empty ones) and Save.
 */
export function StorageDialog({ open, storage, onClose }: { open: boolean; storage: AdminStorage | null; onClose: () => void }) {
  const { t, i18n } = useTranslation();
  const toast = useToast();
  const fetcher = useFetcher<typeof action>();
  const answer = fetcher.state === "idle" ? fetcher.data : undefined;
  const reply = answer && "submission" in answer ? answer.submission : undefined;
  const [form, fields] = useForm({
    id: `storage-${storage?.id ?? "new"}`,
    lastResult: reply,
    onValidate: ({ formData }) => parseWithZod(formData, { schema: storageFormSchema }),
    shouldValidate: "onBlur",
    shouldRevalidate: "onInput",
  });
  const [provider, setProvider] = useState<StorageProvider>(storage?.provider ?? "s3compatible");
  const [tested, setTested] = useState<{ ok: boolean; text: string } | null>(null);
  // Reset when the dialog opens on a storage; not when the list reloads after an action (a new object of the same storage).
  useEffect(() => {
    if (open) {
      setProvider(storage?.provider ?? "s3compatible");
      setTested(null);
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps -- by the storage's id, see above
  }, [open, storage?.id]);
  useEffect(() => {
    if (!answer) return;
    if ("saved" in answer && answer.saved) {
      toast.success(t("admin.storage.saved"));
      onClose();
    } else if ("tested" in answer) {
      setTested(answer.tested.ok ? { ok: true, text: t("admin.storage.test.ok", { ms: answer.tested.ms }) } : { ok: false, text: t("admin.storage.test.failed", { reason: t(`error.${answer.tested.code}`) }) });
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once per answer
  }, [answer]);
  const errors = form.errors?.map((e) => (i18n.exists(e) ? t(e) : e));
  const builtin = storage?.builtin ?? false;
  const s3 = isS3Provider(provider);
  const secretHint = (set: boolean | undefined) => (set ? t("admin.storage.field.secret.kept") : undefined);
  const busy = fetcher.state !== "idle";
  const intent = fetcher.formData?.get("intent");

  return (
    <Modal open={open} onClose={onClose} title={storage ? t("admin.storage.edit") : t("admin.storage.add")} width={STORAGE_DIALOG_WIDTH} footer={null}>
      <fetcher.Form method="post" action="/admin/storage" {...getFormProps(form)} className="flex flex-col gap-4" onChange={() => setTested(null)}>
        {storage && <input type="hidden" name="id" value={storage.id} />}
        <TextInput label={t("admin.storage.name")} name={fields.name.name} defaultValue={storage?.name ?? ""} required maxLength={64} error={fields.name.errors?.[0]} />
        <SelectInput
          label={t("admin.storage.provider")}
          name={fields.provider.name}
          value={provider}
          onChange={(e) => setProvider(e.target.value as StorageProvider)}
          options={STORAGE_PROVIDERS.map((p) => ({ value: p, label: t(`admin.storage.provider.${p}`) }))}
        />
        {provider === "local" && (
          <>
            <TextInput
              label={t("admin.storage.field.path.local")}
              description={builtin ? t("admin.storage.field.path.builtin") : t("admin.storage.field.path.local.hint")}
              name={fields.path.name}
              defaultValue={storage?.provider === "local" ? storage.path : ""}
              readOnly={builtin}
              maxLength={1024}
              error={fields.path.errors?.[0]}
            />
            <div className="grid grid-cols-2 gap-4">
              <SelectInput
                label={t("admin.storage.field.cleanBy")}
                name={fields.cleanBy.name}
                defaultValue={storage?.cleanBy ?? "off"}
                options={CLEAN_BY.map((c) => ({ value: c, label: t(`admin.storage.field.cleanBy.${c}`) }))}
              />
              <SelectInput
                label={t("admin.storage.field.cleanAge")}
                name={fields.cleanAge.name}
                defaultValue={storage?.cleanAge ?? "1m"}
                options={CLEAN_AGES.map((c) => ({ value: c, label: t(`admin.storage.field.cleanAge.${c}`) }))}
              />
            </div>
            <TextInput
              label={t("admin.storage.field.recyclePath")}
              description={t("admin.storage.field.recyclePath.hint")}
              name={fields.recyclePath.name}
              defaultValue={storage?.recyclePath ?? ""}
              maxLength={1024}
              error={fields.recyclePath.errors?.[0]}
            />
          </>
        )}
        {s3 && (
          <>
            <TextInput
              label={t("admin.storage.field.endpoint")}
              description={t("admin.storage.field.endpoint.hint")}
              name={fields.endpoint.name}
              defaultValue={storage?.endpoint ?? ""}
              maxLength={512}
              error={fields.endpoint.errors?.[0]}
            />
            <div className="grid grid-cols-2 gap-4">
              <TextInput label={t("admin.storage.field.bucket")} name={fields.bucket.name} defaultValue={storage?.bucket ?? ""} maxLength={255} error={fields.bucket.errors?.[0]} />
              <TextInput label={t("admin.storage.field.region")} name={fields.region.name} defaultValue={storage?.region ?? ""} maxLength={64} error={fields.region.errors?.[0]} />
            </div>
            <div className="grid grid-cols-2 gap-4">
              <TextInput
                label={t("admin.storage.field.accessKeyId")}
                description={secretHint(storage?.accessKeyIdSet)}
                name={fields.accessKeyId.name}
                autoComplete="off"
                maxLength={256}
                error={fields.accessKeyId.errors?.[0]}
              />
              <TextInput
                label={t("admin.storage.field.secretAccessKey")}
                description={secretHint(storage?.secretAccessKeySet)}
                name={fields.secretAccessKey.name}
                type="password"
                autoComplete="new-password"
                maxLength={256}
                error={fields.secretAccessKey.errors?.[0]}
              />
            </div>
            <div className="grid grid-cols-2 gap-4">
              <TextInput
                label={t("admin.storage.field.path.bucket")}
                description={t("admin.storage.field.path.bucket.hint")}
                name={fields.path.name}
                defaultValue={storage && isS3Provider(storage.provider) ? storage.path : ""}
                maxLength={1024}
                error={fields.path.errors?.[0]}
              />
              <NumberInput
                label={t("admin.storage.field.sliceSize")}
                description={t("admin.storage.field.sliceSize.hint")}
                name={fields.sliceSizeMib.name}
                defaultValue={storage?.sliceSize ? String(storage.sliceSize / MIB) : ""}
                maxLength={String(SLICE_MIB_MAX).length}
                error={fields.sliceSizeMib.errors?.[0]}
              />
            </div>
            <PlainCheckbox label={t("admin.storage.field.virtualAddressing")} name={fields.virtualAddressing.name} value="on" defaultChecked={storage?.virtualAddressing ?? false} />
            {provider === "gcs" && <Callout tone="info">{t("admin.storage.field.credentialsFile.hint")}</Callout>}
          </>
        )}
        {provider === "azure" && (
          <>
            <TextInput
              label={t("admin.storage.field.connectionString")}
              description={secretHint(storage?.connectionStringSet)}
              name={fields.connectionString.name}
              type="password"
              autoComplete="off"
              maxLength={2048}
              error={fields.connectionString.errors?.[0]}
            />
            <div className="grid grid-cols-2 gap-4">
              <TextInput label={t("admin.storage.field.container")} name={fields.container.name} defaultValue={storage?.container ?? ""} maxLength={255} error={fields.container.errors?.[0]} />
              <TextInput label={t("admin.storage.field.path.blob")} name={fields.path.name} defaultValue={storage?.provider === "azure" ? storage.path : ""} maxLength={1024} />
            </div>
          </>
        )}
        {tested && <Callout tone={tested.ok ? "success" : "error"}>{tested.text}</Callout>}
        <FormError id={form.errorId} errors={errors} />
        <div className="flex justify-between gap-2">
          <Button type="submit" name="intent" value="test" variant="outlined" loading={busy && intent === "test"} disabled={busy}>
            {t("admin.storage.test")}
          </Button>
          <div className="flex gap-2">
            <Button variant="outlined" onClick={onClose}>
              {t("global.cancel")}
            </Button>
            <Button type="submit" name="intent" value="save" loading={busy && intent === "save"} disabled={busy}>
              {t("global.confirm")}
            </Button>
          </div>
        </div>
      </fetcher.Form>
      {storage?.provider === "local" && provider === "local" && <AutoCleanPanel storage={storage} />}
    </Modal>
  );
}
