import { PendingPage } from "~/components/shell/pending-page";

export default function Page() {
  return <PendingPage title="shell.page.group" />;
}
