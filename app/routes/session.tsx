import { type ActionFunctionArgs, data, redirect } from "@remix-run/node";
import { assertSameSite } from "~/utils/csrf.server";
import { requireUser } from "~/utils/session.server";

/**
 * The browser's session timers (components/session-timers.tsx) post here: `refresh` every 20
 * minutes renews the engine token (a failure ends the session). The answer says where to go when
 * the session has ended, so the page can show the logout notice.
 */
export async function action({ request }: ActionFunctionArgs) {
  assertSameSite(request);
  const intent = (await request.formData()).get("intent");
  try {
    const user = await requireUser(request, { forceRefresh: intent === "refresh", activity: false });
    return data({ ok: true as const }, { headers: { "Set-Cookie": await user.commit() } });
  } catch (response) {
    if (response instanceof Response && response.status >= 300 && response.status < 400) {
      const cookie = response.headers.get("Set-Cookie");
      return data({ ok: false as const, location: response.headers.get("Location") ?? "/signin" }, { headers: cookie ? { "Set-Cookie": cookie } : undefined });
    }
    throw response;
  }
}

export const loader = () => redirect("/signin");
