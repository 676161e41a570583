import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { AdminLinksScreen } from "~/admin/links/links-page";
import { linksAction, linksLoader } from "~/admin/links/links.server";

/** Share files (admin spec section 2 "Links"): every user's download links (docs/web.md, "Admin console"). */
// Functions, not calls at module level: the client build drops loader and action with their server imports.
export function loader(args: LoaderFunctionArgs) {
  return linksLoader("files")(args);
}
export function action(args: ActionFunctionArgs) {
  return linksAction("files")(args);
}
export default AdminLinksScreen;
