import { type ActionFunctionArgs, data } from "@remix-run/node";
import { useFetcher } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { SendPage } from "~/p2p/send-page";
import { sendSchema, STATUS_ERRORS, type SendCheck } from "~/p2p/send-form";
import { readForm } from "~/utils/form.server";
import { requireUser } from "~/utils/session.server";

/**
 * Checks the receiver before the page offers the files (spec section 4, "P2P sender"): the status
 * call goes to the engine from here, so the session's tokens stay on the server.
 */
export async function action({ request }: ActionFunctionArgs) {
  const form = await readForm(request);
  const user = await requireUser(request);
  const parsed = sendSchema.safeParse(Object.fromEntries(form));
  if (!parsed.success) {
    const errors: Record<string, string> = {};
    for (const issue of parsed.error.issues) errors[String(issue.path[0] ?? "form")] ??= issue.message;
    return data<SendCheck>({ ok: false, errors }, { status: 400 });
  }
  const id = parsed.data.receiver;
  const answer = await user.call<{ result: number; online: boolean; account: string }>(`/api/transmission/ptp/status?${new URLSearchParams({ data: JSON.stringify({ id }) })}`, { request });
  const headers = { "Set-Cookie": await user.commit() };
  if (!answer.result || !answer.data) return data<SendCheck>({ ok: false, errors: { form: answer.message } }, { status: 400, headers });
  const refused = STATUS_ERRORS[answer.data.result];
  if (refused) return data<SendCheck>({ ok: false, errors: { receiver: refused } }, { status: 400, headers });
  return data<SendCheck>({ ok: true, id, account: answer.data.account, online: answer.data.online }, { headers });
}

export default function SenderPage() {
  const { t } = useTranslation();
  const fetcher = useFetcher<typeof action>();
  return (
    <>
      <h1 className="mb-4 text-lg font-semibold">{t("shell.page.p2p.sender")}</h1>
      <SendPage fetcher={fetcher} />
    </>
  );
}
