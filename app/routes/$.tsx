import { type ActionFunctionArgs, redirect } from "@remix-run/node";
import { discardBody } from "~/utils/form.server";

/** Spec: any other path redirects to /signin. */
export const loader = () => redirect("/signin");
/** A post to an unknown path: its body is discarded, not read. */
export const action = ({ request }: ActionFunctionArgs) => {
  discardBody(request);
  return redirect("/signin");
};
