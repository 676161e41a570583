import { useTranslation } from "react-i18next";
import { ReceivePage } from "~/p2p/receive-page";

/** Receiving from another device (spec section 2, "P2P receiver"): everything happens over the file server's socket. */
export default function ReceiverPage() {
  const { t } = useTranslation();
  return (
    <>
      <h1 className="mb-4 text-lg font-semibold">{t("shell.page.p2p.receiver")}</h1>
      <ReceivePage />
    </>
  );
}
