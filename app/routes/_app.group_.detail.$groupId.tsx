import { Link, useParams } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { Empty } from "~/components/ui/empty";
import { FileBrowser } from "~/files/file-browser";
import { useShellUser } from "~/files/use-shell-user";

/** A group's file space: the membership's groupPermission applies (the engine checks it again). */
export default function GroupDetailPage() {
  const { t } = useTranslation();
  const user = useShellUser();
  const groupId = Number(useParams().groupId);
  if (!user) return null;
  const group = user.groupList.find((g) => g.groupId === groupId);
  const back = (
    <Link to="/group" className="text-primary hover:underline">
      {t("files.group.back")}
    </Link>
  );
  if (!group) {
    return (
      <>
        <nav aria-label={t("files.breadcrumb")} className="mb-4 text-sm">
          {back}
        </nav>
        <Empty description={t("error.1008")} />
      </>
    );
  }
  return (
    <>
      <h1 className="mb-4 text-lg font-semibold">{group.groupName}</h1>
      <FileBrowser key={groupId} space="group" groupId={groupId} permission={group.groupPermission} userSyncSwitch={group.syncSwitch} breadcrumbLead={back} />
    </>
  );
}
