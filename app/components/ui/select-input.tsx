import { forwardRef, useId, type ReactNode, type SelectHTMLAttributes } from "react";
import { cn } from "./cn";

export type SelectInputProps = Omit<SelectHTMLAttributes<HTMLSelectElement>, "size"> & {
  label: ReactNode;
  options: ReadonlyArray<{ value: string; label: string }>;
  /** Classes for the wrapper; the select itself keeps the kit's look. */
  className?: string;
};

/** A labelled native select: a plain form field, so a GET or POST form works without JavaScript. */
export const SelectInput = forwardRef<HTMLSelectElement, SelectInputProps>(function SelectInput({ label, options, className, id, ...props }, ref) {
  const autoId = useId();
  const selectId = id ?? `${autoId}-select`;
  return (
    <div className={cn("flex flex-col gap-1", className)}>
      <label htmlFor={selectId} className="text-sm font-medium text-gray-800">
        {label}
      </label>
      <select
        ref={ref}
        id={selectId}
        className="h-8 rounded border border-gray-300 bg-white px-2 text-sm text-gray-900 focus:border-primary focus:outline-none focus:ring-1 focus:ring-primary"
        {...props}
      >
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </div>
  );
});
