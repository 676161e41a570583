import { ComingPage } from "~/admin/shell/coming-page";

/** The console's start page, "Server" in the sidebar: the dashboard arrives here (issue 14). */
export default function AdminDashboard() {
  return <ComingPage to="/admin" />;
}
