import type { ReactNode } from "react";
import { cn } from "./cn";

export type ToggleOption<T extends string> = { value: T; label: ReactNode };

/** Joined buttons of which one is on (aria-pressed), e.g. the file pages' List | Tree. */
export function ToggleGroup<T extends string>({
  label,
  options,
  value,
  onChange,
  className,
}: {
  /** The group's accessible name. */
  label: string;
  options: readonly ToggleOption<T>[];
  value: T;
  onChange: (value: T) => void;
  className?: string;
}) {
  return (
    <span role="group" aria-label={label} className={cn("inline-flex overflow-hidden rounded border border-gray-300", className)}>
      {options.map((option) => (
        <button
          key={option.value}
          type="button"
          aria-pressed={value === option.value}
          onClick={() => onChange(option.value)}
          className={cn(
            "h-8 px-3 text-sm focus-visible:outline focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-primary",
            value === option.value ? "bg-primary text-white" : "bg-white text-gray-700 hover:bg-gray-50",
          )}
        >
          {option.label}
        </button>
      ))}
    </span>
  );
}
