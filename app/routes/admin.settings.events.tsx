import { ComingPage } from "~/admin/shell/coming-page";

/** Placeholder until this console screen is built (docs/web.md, "Admin console"). */
export default function SettingsEventsPage() {
  return <ComingPage to="/admin/settings/events" />;
}
