import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from "@remix-run/node";
import { useActionData, useLoaderData } from "@remix-run/react";
import { UserFormPage } from "~/admin/users/user-page";
import { defaultsOf } from "~/admin/users/user-form";
import { storageChoices, userFormAction } from "~/admin/users/user-form.server";
import { requireAdmin, type SignedIn } from "~/utils/session.server";
import { idParams, type AdminUser } from "../../contract/admin";
import { ErrorCode } from "../../contract/errors";

async function loadUser(admin: SignedIn, params: Record<string, string | undefined>): Promise<AdminUser> {
  const id = idParams.safeParse({ id: params.id });
  if (!id.success) throw new Response("Not found", { status: 404 });
  const reply = await admin.call<AdminUser>(`/api/admin/users/${id.data.id}`);
  // The engine says 4118 for an id it does not know (4001 is an account name): the page does not exist.
  const missing: number[] = [ErrorCode.UserNotFound, ErrorCode.AccountNotExist];
  if (!reply.result || !reply.data) throw new Response(reply.message, { status: missing.includes(reply.code) ? 404 : 502 });
  return reply.data;
}

/** Edit a user in the same 4 steps; an empty password keeps the current one. */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const admin = await requireAdmin(request);
  const user = await loadUser(admin, params);
  return data({ id: user.id, account: user.account, defaultValue: defaultsOf(user, user.permission), storages: await storageChoices(admin) }, { headers: { "Set-Cookie": await admin.commit() } });
}

export async function action({ request, params }: ActionFunctionArgs) {
  const admin = await requireAdmin(request);
  const user = await loadUser(admin, params);
  return userFormAction(request, admin, "edit", user);
}

export default function EditUserPage() {
  const { id, account, defaultValue, storages } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  return <UserFormPage mode="edit" account={account} storages={storages} action={`/admin/users/${id}`} defaultValue={defaultValue} answer={answer} />;
}
