import { AdminLinksScreen } from "~/admin/links/links-page";
import { linksAction, linksLoader } from "~/admin/links/links.server";

/** Request files (admin spec section 2 "Links"): every user's upload invitations (docs/web.md, "Admin console"). */
export const loader = linksLoader("requests");
export const action = linksAction("requests");
export default AdminLinksScreen;
