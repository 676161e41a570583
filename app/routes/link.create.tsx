import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from "@remix-run/node";
import { parseFormData } from "~/components/ui/form";
import { getLanguage, getT } from "~/i18n/i18next.server";
import { createPayload, shareFormSchema } from "~/shares/rules";
import { pageOrigin } from "~/utils/origin.server";
import { requireUser } from "~/utils/session.server";
import type { shareCreateData } from "../../contract/share";
import { EMAIL_SENDER } from "../../contract/mail";
import type { ServerInfo } from "../../contract/site";
import type { UserInfo } from "../../contract/users";
import type * as z from "zod";
import { env } from "~/utils/env.server";
import { readForm } from "~/utils/form.server";

/**
 * The share and invite dialogs' endpoint (app/shares/share-dialog.tsx), a resource route.
 * GET: whether this user has a mail sender (the account their emailSenderType names: none, the
 * server's or their own; docs/mail.md, "Whose account"), and if not, why. POST: creates the link.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const [info, service] = await Promise.all([user.call<{ user: UserInfo }>("/api/user/info"), user.call<{ server: ServerInfo }>("/api/service/info")]);
  const mailProblem = senderProblem(info.data?.user, service.data?.server);
  return data({ mailReady: mailProblem === null, mailProblem }, { headers: { "Set-Cookie": await user.commit() } });
}

/** The engine's 4135 reasons (server/mail/service.ts): which sender the user lacks. */
export type MailProblem = "sender-none" | "server-account-not-set" | "own-account-not-set";
const MAIL_PROBLEMS: readonly string[] = ["sender-none", "server-account-not-set", "own-account-not-set"];

function senderProblem(user: UserInfo | undefined, server: ServerInfo | undefined): MailProblem | null {
  if (!user || user.emailSenderType === EMAIL_SENDER.none) return "sender-none";
  if (user.emailSenderType === EMAIL_SENDER.server) return server?.emailAccount ? null : "server-account-not-set";
  return user.emailAccount ? null : "own-account-not-set";
}

/** Which field an engine refusal belongs to; the rest show above the form. */
const FIELD_OF_CODE: Record<number, string> = {
  4230: "password",
  4232: "expireDate",
  1022: "shareEmail",
  4197: "aliases",
  4198: "aliases",
  4199: "aliases",
  4200: "aliases",
};

export async function action({ request }: ActionFunctionArgs) {
  // The one larger form: a share may list 1000 paths (SHARE_MAX_ENTRIES), about 100 bytes each.
  const form = await readForm(request, { limit: env.shareFormLimit });
  const user = await requireUser(request);
  const submission = parseFormData(form, shareFormSchema);
  const headers = { "Set-Cookie": await user.commit() };
  if (submission.status !== "success") return data({ result: submission.reply(), created: null, mailRefused: false, mailProblem: null }, { status: 400, headers });

  const [t, language] = await Promise.all([getT(request), getLanguage(request)]);
  const origin = pageOrigin(request);
  const body = createPayload(submission.value, { baseUrl: origin, nowMs: Date.now(), language });
  // The page's origin (already checked against this request by the action's cross-site guard) goes
  // to the engine as the browser would send it: without FERRY_WEB_ORIGINS the engine accepts a base
  // URL on the host the request came from (docs/shares.md, "Share base URL").
  const reply = await user.call<z.infer<typeof shareCreateData>>("/api/share/link/create", { method: "POST", body: JSON.stringify(body), headers: { Origin: origin } });
  if (!reply.result || !reply.data) {
    // No mail sender (4135): the dialog turns its e-mail switches off again and says which sender is missing.
    if (reply.code === 4135) {
      const reason = String((reply.data as { reason?: unknown } | null)?.reason ?? "");
      const mailProblem = MAIL_PROBLEMS.includes(reason) ? (reason as MailProblem) : null;
      const message = t(mailProblem ? `app.transfer.share.email.${mailProblem}` : "app.transfer.share.email.error");
      return data({ result: submission.reply({ formErrors: [message] }), created: null, mailRefused: true, mailProblem }, { status: 400, headers });
    }
    const message = t(`error.${reply.code}`, { defaultValue: reply.message, ...((reply.data as Record<string, unknown> | null) ?? {}) });
    const field = FIELD_OF_CODE[reply.code];
    const result = field ? submission.reply({ fieldErrors: { [field]: [message] } }) : submission.reply({ formErrors: [message] });
    return data({ result, created: null, mailRefused: false, mailProblem: null }, { status: 400, headers });
  }
  const mailError = reply.data.mailError ? t(`error.${reply.data.mailError}`, { defaultValue: String(reply.data.mailError) }) : null;
  return data(
    { result: submission.reply({ resetForm: true }), created: { url: reply.data.shareUrl, password: reply.data.sharePassword, mailError }, mailRefused: false, mailProblem: null },
    { headers },
  );
}
