import { type ActionFunctionArgs, data, redirect } from "@remix-run/node";
import { requireUser } from "~/utils/session.server";
import { readForm } from "~/utils/form.server";

/**
 * The browser's session timer (components/session-timers.tsx) posts `refresh` here every 20
 * minutes to renew the engine token. The refresh is not activity. When it fails the session ends and
 * the redirect to /signin?reason=expired (which shows the logout notice) is followed by the page.
 */
export async function action({ request }: ActionFunctionArgs) {
  const intent = (await readForm(request)).get("intent");
  const user = await requireUser(request, { forceRefresh: intent === "refresh", activity: false });
  return data({ ok: true as const }, { headers: { "Set-Cookie": await user.commit() } });
}

export const loader = () => redirect("/signin");
