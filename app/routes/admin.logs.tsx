import { ComingPage } from "~/admin/shell/coming-page";

/** Placeholder until this console screen is built (docs/web.md, "Admin console"). */
export default function LogsPage() {
  return <ComingPage to="/admin/logs" />;
}
