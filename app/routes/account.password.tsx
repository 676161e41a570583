import { parseWithZod } from "@conform-to/zod/v4";
import { type ActionFunctionArgs, data, redirect } from "@remix-run/node";
import { changePassword } from "~/auth/password.server";
import { destroySession, requireUser } from "~/utils/session.server";
import { redirectWithToast } from "~/utils/toast.server";
import { changePasswordSchema } from "~/components/new-password-fields";
import { readForm } from "~/utils/form.server";

export async function action({ request }: ActionFunctionArgs) {
  const form = await readForm(request);
  const user = await requireUser(request);
  const submission = parseWithZod(form, { schema: changePasswordSchema });
  const hideFields = ["oldPassword", "newPassword", "confirmPassword"];
  if (submission.status !== "success") return data(submission.reply({ hideFields }), { status: 400 });
  const refused = await changePassword(request, { account: user.engine.account, ...submission.value }, user);
  if (refused) return data(submission.reply({ formErrors: [refused], hideFields }), { status: 400 });
  // The engine has revoked every session of the account: sign in again with the new password.
  return redirectWithToast("/signin", { type: "success", message: "shell.password.success" }, { headers: { "Set-Cookie": await destroySession(request, user.session) } });
}

export const loader = () => redirect("/personal");
