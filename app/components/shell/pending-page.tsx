import { useTranslation } from "react-i18next";
import { Empty } from "../ui/empty";

/** A page of the menu whose content arrives with a later issue (file spaces, P2P, links). */
export function PendingPage({ title }: { title: string }) {
  const { t } = useTranslation();
  return (
    <section>
      <h1 className="mb-4 text-lg font-semibold">{t(title)}</h1>
      <Empty description={t("shell.page.pending")} />
    </section>
  );
}
