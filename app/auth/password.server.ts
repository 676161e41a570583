import { getT } from "~/i18n/i18next.server";
import { codec } from "~/utils/credentials.server";
import { engineFetch, EngineError } from "~/utils/engine.server";
import type { SignedIn } from "~/utils/session.server";
import { wrongPasswordData } from "../../contract/auth";

/**
 * PUT /api/user/password/update: the forced change after a 1074 (no session: the old password proves
 * who asks) or the signed-in change (`signedIn`'s token). Answers null when the password changed, or
 * the refusal as the catalogue's text in the reader's language. The engine then revokes every
 * session of the account.
 */
export async function changePassword(request: Request, input: { account: string; oldPassword: string; newPassword: string }, signedIn?: SignedIn): Promise<string | null> {
  const t = await getT(request);
  const body = JSON.stringify({ account: input.account, oldPassword: codec.encode(input.oldPassword), newPassword: codec.encode(input.newPassword), needUpdatePwd: false });
  try {
    const reply = signedIn
      ? await signedIn.call("/api/user/password/update", { method: "PUT", body })
      : await engineFetch("/api/user/password/update", { method: "PUT", request, headers: { "Content-Type": "application/json" }, body });
    if (reply.result) return null;
    if (reply.code === 1023) return t("atuh.password.rule-error");
    const wrong = reply.code === 1005 && wrongPasswordData.safeParse(reply.data);
    const vars = wrong && wrong.success ? { wrongTimes: wrong.data.loginFailTimes, maxLockTimes: wrong.data.maxLockTimes, lockPeriod: Math.round(wrong.data.lockPeriod / 60) } : {};
    return t(`error.${reply.code}`, { defaultValue: reply.message, ...vars });
  } catch (error) {
    if (error instanceof EngineError) return t("global.server.error");
    throw error;
  }
}
