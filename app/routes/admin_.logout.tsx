import { type ActionFunctionArgs, redirect } from "@remix-run/node";
import { getSession, signOut } from "~/utils/session.server";
import { readForm } from "~/utils/form.server";

/** The console's log out (a POST): the admin session ends, the browser goes to /admin/signin (the user app's session stays). */
export async function action({ request }: ActionFunctionArgs) {
  const reason = (await readForm(request)).get("reason") === "expired" ? "expired" : undefined;
  return signOut(request, await getSession(request, "admin"), reason, "admin");
}

export const loader = () => redirect("/admin/signin");
