import { type ActionFunctionArgs, redirect } from "@remix-run/node";
import { getSession, signOut } from "~/utils/session.server";
import { readForm } from "~/utils/form.server";

/** Sign out (a POST: no state changes on GET). `reason=expired` shows the logout notice at /signin. */
export async function action({ request }: ActionFunctionArgs) {
  const reason = (await readForm(request)).get("reason") === "expired" ? "expired" : undefined;
  return signOut(request, await getSession(request), reason);
}

export const loader = () => redirect("/signin");
