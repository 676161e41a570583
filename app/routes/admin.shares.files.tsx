import { AdminLinksScreen } from "~/admin/links/links-page";
import { linksAction, linksLoader } from "~/admin/links/links.server";

/** Share files (admin spec section 2 "Links"): every user's download links (docs/web.md, "Admin console"). */
export const loader = linksLoader("files");
export const action = linksAction("files");
export default AdminLinksScreen;
