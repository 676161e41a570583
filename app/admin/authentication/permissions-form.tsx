import type { SubmissionResult } from "@conform-to/react";
import { Form } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { Button } from "~/components/ui/button";
import { FormBuilder, type FormField } from "~/components/ui/form";
import { hasPermission, Permission, USED_PERMISSIONS } from "../../../contract/permissions";
import { permissionFormSchema } from "./schema";

/** The default permissions tab: the security settings' defaultPermission as one checkbox per bit. */
export function PermissionsForm({ mask, lastResult }: { mask: number; lastResult?: SubmissionResult<string[]> }) {
  const { t } = useTranslation();
  const fields: FormField[] = [
    {
      name: "permission",
      label: t("admin.auth.permissions"),
      type: "checkboxGroup",
      options: USED_PERMISSIONS.map((name) => ({ value: name, label: t(`admin.users.permission.${name}`) })),
    },
  ];
  return (
    <div className="flex flex-col gap-4">
      <p className="text-sm text-gray-600">{t("admin.auth.permissions.note")}</p>
      <FormBuilder
        id="authentication-permissions"
        schema={permissionFormSchema}
        fields={fields}
        as={Form}
        method="post"
        action="/admin/authentication?tab=permissions"
        lastResult={lastResult}
        defaultValue={{ permission: USED_PERMISSIONS.filter((name) => hasPermission(mask, Permission[name])) }}
      >
        <Button type="submit" name="intent" value="save-permissions">
          {t("admin.auth.save")}
        </Button>
      </FormBuilder>
    </div>
  );
}
