import { type ActionFunctionArgs, data, redirect } from "@remix-run/node";
import { requireAdmin } from "~/utils/session.server";
import { readForm } from "~/utils/form.server";

/** The console's session timer posts `refresh` here, as the user app's does to /session (routes/session.tsx). */
export async function action({ request }: ActionFunctionArgs) {
  const intent = (await readForm(request)).get("intent");
  const admin = await requireAdmin(request, { forceRefresh: intent === "refresh", activity: false });
  return data({ ok: true as const }, { headers: { "Set-Cookie": await admin.commit() } });
}

export const loader = () => redirect("/admin/signin");
