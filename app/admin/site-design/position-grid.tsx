import { useTranslation } from "react-i18next";
import type { CustomFieldProps } from "~/components/ui/form";

/** The nine login-box positions as a 3 × 3 group of named radio buttons (1 top left … 9 bottom right). */
export function PositionGrid({ field, value, onChange, disabled }: { field: CustomFieldProps; value: number; onChange: (position: number) => void; disabled: boolean }) {
  const { t } = useTranslation();
  return (
    <div role="radiogroup" aria-labelledby={field.labelId} className="grid w-48 grid-cols-3 gap-1 rounded border border-gray-300 bg-gray-50 p-1">
      {Array.from({ length: 9 }, (_, i) => i + 1).map((position) => (
        <label key={position} className="flex h-9 cursor-pointer items-center justify-center rounded border border-transparent bg-white text-xs text-gray-700 has-[:checked]:border-primary has-[:checked]:bg-primary has-[:checked]:text-white has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-primary has-[:disabled]:cursor-not-allowed">
          <input type="radio" name={field.name} value={position} checked={value === position} onChange={() => onChange(position)} disabled={disabled} className="sr-only" />
          <span aria-hidden="true">{position}</span>
          <span className="sr-only">{t(`admin.site.position.${position}`)}</span>
        </label>
      ))}
    </div>
  );
}
