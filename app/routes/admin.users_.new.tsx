import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from "@remix-run/node";
import { useActionData, useLoaderData } from "@remix-run/react";
import { UserFormPage } from "~/admin/users/user-page";
import { defaultsOf } from "~/admin/users/user-form";
import { storageChoices, userFormAction } from "~/admin/users/user-form.server";
import { requireAdmin } from "~/utils/session.server";
import type { SecuritySettings } from "../../contract/admin";
import { PERMISSION_DEFAULT } from "../../contract/permissions";

/** Add a user in 4 steps (admin spec section 2); a new user starts with the security settings' default permission. */
export async function loader({ request }: LoaderFunctionArgs) {
  const admin = await requireAdmin(request);
  const security = await admin.call<SecuritySettings>("/api/admin/settings/security");
  const permission = security.result && security.data ? security.data.defaultPermission : PERMISSION_DEFAULT;
  return data({ defaultValue: defaultsOf(null, permission), storages: await storageChoices(admin) }, { headers: { "Set-Cookie": await admin.commit() } });
}

export async function action({ request }: ActionFunctionArgs) {
  const admin = await requireAdmin(request);
  return userFormAction(request, admin, "create", null);
}

export default function NewUserPage() {
  const { defaultValue, storages } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  return <UserFormPage mode="create" storages={storages} action="/admin/users/new" defaultValue={defaultValue} answer={answer} />;
}
