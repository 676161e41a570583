import { useTranslation } from "react-i18next";
import { FileBrowser } from "~/files/file-browser";
import { useShellUser } from "~/files/use-shell-user";

/** The personal file space (group id 0, the user's own permission); the landing page after sign-in. */
export default function PersonalPage() {
  const { t } = useTranslation();
  const user = useShellUser();
  if (!user) return null;
  return (
    <>
      <h1 className="mb-4 text-lg font-semibold">{t("shell.page.personal")}</h1>
      <FileBrowser space="personal" groupId={0} permission={user.permission} userSyncSwitch={user.syncSwitch} />
    </>
  );
}
