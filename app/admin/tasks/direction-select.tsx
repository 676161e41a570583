import { useTranslation } from "react-i18next";
import { SelectInput } from "~/components/ui/select-input";

/** The filter "Direction: All / Upload / Download" of the live list and of the transfer log (field `direction`). */
export function DirectionSelect({ defaultValue }: { defaultValue: string }) {
  const { t } = useTranslation();
  return (
    <SelectInput
      name="direction"
      label={t("admin.tasks.direction")}
      defaultValue={defaultValue}
      options={[
        { value: "", label: t("global.all") },
        { value: "upload", label: t("admin.tasks.direction.upload") },
        { value: "download", label: t("admin.tasks.direction.download") },
      ]}
      className="w-36"
    />
  );
}
