import type { CustomFieldProps } from "~/components/ui/form";
import { cn } from "~/components/ui/cn";
import { SPEED_UNITS } from "./schema";

/** A speed: the number (the form field itself, named by the field's label) and its unit (KB/s or MB/s) as a second, separately named select. */
export function SpeedInput({ id, name, errorId, invalid, required, defaultValue, unitName, unit, unitLabel }: CustomFieldProps & { unitName: string; unit: keyof typeof SPEED_UNITS; unitLabel: string }) {
  return (
    <span className="flex items-center gap-2">
      <input
        id={id}
        name={name}
        type="number"
        min={0}
        step={1}
        required={required}
        defaultValue={typeof defaultValue === "string" ? defaultValue : ""}
        aria-invalid={invalid || undefined}
        aria-describedby={invalid ? errorId : undefined}
        className={cn(
          "h-8 w-40 rounded border bg-white px-3 text-sm text-gray-900 focus:outline-none focus:ring-1",
          invalid ? "border-red-600 focus:ring-red-600" : "border-gray-300 focus:border-primary focus:ring-primary",
        )}
      />
      <select aria-label={unitLabel} name={unitName} defaultValue={unit} className="h-8 rounded border border-gray-300 bg-white px-2 text-sm text-gray-900 focus:border-primary focus:outline-none focus:ring-1 focus:ring-primary">
        {Object.keys(SPEED_UNITS).map((u) => (
          <option key={u} value={u}>
            {u}/s
          </option>
        ))}
      </select>
    </span>
  );
}
