/**
 * A slider with its value written next to it (`shown`, e.g. "50%"), labelled by the form field it
 * renders for (`id`). Controlled with `value` + `onChange`, or left to the browser with `defaultValue`
 * (the page then reads the value from the form's own change events).
 */
export function RangeInput({
  id,
  name,
  min,
  max,
  step,
  shown,
  value,
  defaultValue,
  onChange,
  disabled = false,
}: {
  id: string;
  name: string;
  min: number;
  max: number;
  step: number;
  shown: string;
  value?: number;
  defaultValue?: number;
  onChange?: (value: number) => void;
  disabled?: boolean;
}) {
  return (
    <span className="flex items-center gap-3">
      <input
        id={id}
        type="range"
        name={name}
        min={min}
        max={max}
        step={step}
        value={value}
        defaultValue={defaultValue}
        onChange={onChange && ((event) => onChange(Number(event.target.value)))}
        disabled={disabled}
        className="w-48 accent-[var(--color-primary,#FD5C1F)]"
      />
      <output htmlFor={id} className="text-sm text-gray-700">
        {shown}
      </output>
    </span>
  );
}
