import type { FieldMetadata } from "@conform-to/react";
import { useTranslation } from "react-i18next";
import * as z from "zod";
import { createUserBody } from "../../contract/admin";
import { passwordProblem } from "../../contract/validation";
import { TextInput } from "./ui/text-input";

/**
 * The longest password an account can hold (what an administrator may set, contract/admin.ts): a
 * longer one typed at sign-in or as the old password is refused before it is encoded or sent.
 */
export const PASSWORD_INPUT_MAX = createUserBody.shape.password.maxLength ?? 64;

/** A password typed in a form: present, and no longer than any account's can be. */
export const typedPassword = z.string({ error: "auth.password.required" }).min(1, "auth.password.required").max(PASSWORD_INPUT_MAX, "auth.password.too-long");

const required = typedPassword;

/** New password and its confirmation (spec section 5), shared by the forced reset and the in-app change. */
export const newPasswordShape = { newPassword: required, confirmPassword: required };

/** 8–20, no Chinese, three of four classes; the confirmation equal. The engine also checks the account name and weak list. */
export function checkNewPassword(value: { newPassword: string; confirmPassword: string }, ctx: z.RefinementCtx) {
  if (passwordProblem(value.newPassword, "", [])) ctx.addIssue({ code: "custom", path: ["newPassword"], message: "atuh.password.rule-error" });
  else if (value.confirmPassword !== value.newPassword) ctx.addIssue({ code: "custom", path: ["confirmPassword"], message: "atuh.password.confirm-error" });
}

/** The in-app password change (Normal accounts): old, new and confirmation. */
export const changePasswordSchema = z.object({ oldPassword: required, ...newPasswordShape }).superRefine(checkNewPassword);

export function NewPasswordFields({ fields }: { fields: { newPassword: FieldMetadata<string>; confirmPassword: FieldMetadata<string> } }) {
  const { t } = useTranslation();
  return (
    <>
      <TextInput
        label={t("auth.password.new")}
        name={fields.newPassword.name}
        type="password"
        autoComplete="new-password"
        description={t("auth.password.rules")}
        error={fields.newPassword.errors?.[0]}
      />
      <TextInput label={t("auth.password.confirm")} name={fields.confirmPassword.name} type="password" autoComplete="new-password" error={fields.confirmPassword.errors?.[0]} />
    </>
  );
}
