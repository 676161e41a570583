import { useTranslation } from "react-i18next";
import type { CustomFieldProps, FormField } from "~/components/ui/form";
import { RangeInput } from "~/components/ui/range-input";

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

/**
 * The two form fields that place a picture and fade it, shared by the site design (login box) and
 * the general settings (watermark): a position on the 3 × 3 grid, and an opacity slider in percent
 * from `min` to 100 (controlled with `onChange`, else the browser keeps it).
 */
export function placementFields({
  locked,
  position,
  opacity,
}: {
  locked: boolean;
  position: { name: string; label: string; value: number; onChange: (position: number) => void };
  opacity: { name: string; label: string; min: number; value: number; initial?: number; onChange?: (opacity: number) => void };
}): FormField[] {
  return [
    { name: position.name, label: position.label, type: "custom", disabled: locked, render: (field) => <PositionGrid field={field} value={position.value} disabled={locked} onChange={position.onChange} /> },
    {
      name: opacity.name,
      label: opacity.label,
      type: "custom",
      disabled: locked,
      render: ({ id, name }) => (
        <RangeInput
          id={id}
          name={name}
          min={opacity.min}
          max={100}
          step={5}
          shown={`${opacity.value}%`}
          {...(opacity.onChange ? { value: opacity.value, onChange: opacity.onChange } : { defaultValue: opacity.initial })}
          disabled={locked}
        />
      ),
    },
  ];
}
