import { parseWithZod } from "@conform-to/zod/v4";
import { type ActionFunctionArgs, data, redirect } from "@remix-run/node";
import { getT } from "~/i18n/i18next.server";
import { codec } from "~/utils/credentials.server";
import { destroySession, requireUser } from "~/utils/session.server";
import { redirectWithToast } from "~/utils/toast.server";
import { changePasswordSchema } from "~/components/new-password-fields";
import { readForm } from "~/utils/form.server";

export async function action({ request }: ActionFunctionArgs) {
  const form = await readForm(request);
  const user = await requireUser(request);
  const t = await getT(request);
  const submission = parseWithZod(form, { schema: changePasswordSchema });
  const hideFields = ["oldPassword", "newPassword", "confirmPassword"];
  if (submission.status !== "success") return data(submission.reply({ hideFields }), { status: 400 });
  const reply = await user.call("/api/user/password/update", {
    method: "PUT",
    body: JSON.stringify({
      account: user.engine.account,
      oldPassword: codec.encode(submission.value.oldPassword),
      newPassword: codec.encode(submission.value.newPassword),
      needUpdatePwd: false,
    }),
  });
  if (!reply.result) {
    const vars = reply.code === 1005 ? { wrongTimes: (reply.data as { loginFailTimes: number }).loginFailTimes, maxLockTimes: (reply.data as { maxLockTimes: number }).maxLockTimes, lockPeriod: Math.round((reply.data as { lockPeriod: number }).lockPeriod / 60) } : {};
    const message = reply.code === 1023 ? t("atuh.password.rule-error") : t(`error.${reply.code}`, { defaultValue: reply.message, ...vars });
    return data(submission.reply({ formErrors: [message], hideFields }), { status: 400 });
  }
  // The engine has revoked every session of the account: sign in again with the new password.
  return redirectWithToast("/signin", { type: "success", message: "shell.password.success" }, { headers: { "Set-Cookie": await destroySession(request, user.session) } });
}

export const loader = () => redirect("/personal");
