import { ComingPage } from "~/admin/shell/coming-page";

/** Placeholder until this console screen is built (docs/web.md, "Admin console"). */
export default function TransferP2pPage() {
  return <ComingPage to="/admin/transfer/p2p" />;
}
