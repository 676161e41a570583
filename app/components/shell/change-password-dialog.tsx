import { getFormProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { useFetcher } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import type { action } from "~/routes/account.password";
import { changePasswordSchema, NewPasswordFields } from "../new-password-fields";
import { FormError } from "../ui/form-error";
import { DialogFooter, Modal } from "../ui/modal";
import { TextInput } from "../ui/text-input";

/** Spec: the change-password dialog, 700 px wide, old / new / confirm. */
export const CHANGE_PASSWORD_WIDTH = 700;

export function ChangePasswordDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const fetcher = useFetcher<typeof action>();
  const [form, fields] = useForm({
    lastResult: fetcher.data,
    onValidate: ({ formData }) => parseWithZod(formData, { schema: changePasswordSchema }),
    shouldValidate: "onBlur",
    shouldRevalidate: "onInput",
  });
  return (
    <Modal open={open} onClose={onClose} title={t("shell.password.title")} width={CHANGE_PASSWORD_WIDTH} footer={null}>
      <fetcher.Form method="post" action="/account/password" {...getFormProps(form)} className="flex flex-col gap-4">
        <TextInput label={t("auth.password.old")} name={fields.oldPassword.name} type="password" autoComplete="current-password" error={fields.oldPassword.errors?.[0]} />
        <NewPasswordFields fields={fields} />
        <FormError id={form.errorId} errors={form.errors} />
        <DialogFooter onCancel={onClose} busy={fetcher.state !== "idle"} />
      </fetcher.Form>
    </Modal>
  );
}
