import { useTranslation } from "react-i18next";
import { Empty } from "~/components/ui/empty";
import { ADMIN_PAGES } from "./menu";

/**
 * A console page whose screen arrives with a later issue: its heading and a "coming" note, so no
 * sidebar entry is a dead link. Each placeholder route is one line: `<ComingPage to="/admin/…" />`.
 */
export function ComingPage({ to }: { to: string }) {
  const { t } = useTranslation();
  const page = ADMIN_PAGES.find((p) => p.to === to);
  return (
    <section>
      <h1 className="mb-4 text-lg font-semibold">{page ? t(page.label) : to}</h1>
      <Empty description={t("admin.coming")}>
        <p className="text-sm text-gray-500">{t("admin.coming.engine")}</p>
      </Empty>
    </section>
  );
}
