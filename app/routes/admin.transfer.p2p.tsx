import { useTranslation } from "react-i18next";
import { Empty } from "~/components/ui/empty";

/**
 * Point to point (admin spec section 2 "Transfer: Point to point"): the transfers desktop clients
 * make directly between each other. Ferry has no P2P yet, so the screen is its empty state.
 */
export default function TransferP2pPage() {
  const { t } = useTranslation();
  return (
    <section className="flex flex-col gap-4">
      <h1 className="text-lg font-semibold">{t("admin.menu.transfer.p2p")}</h1>
      <Empty description={t("admin.p2p.empty")}>
        <p className="max-w-xl text-sm text-gray-600">{t("admin.p2p.empty.what")}</p>
      </Empty>
    </section>
  );
}
