import { type ActionFunctionArgs, redirect } from "@remix-run/node";
import { assertSameSite } from "~/utils/csrf.server";
import { getSession, signOut } from "~/utils/session.server";

/** Sign out (a POST: no state changes on GET). `reason=expired` shows the logout notice at /signin. */
export async function action({ request }: ActionFunctionArgs) {
  assertSameSite(request);
  const reason = (await request.formData()).get("reason") === "expired" ? "expired" : undefined;
  return signOut(request, await getSession(request), reason);
}

export const loader = () => redirect("/signin");
