import { Checkbox as HeadlessCheckbox, Field, Label } from "@headlessui/react";
import { type InputHTMLAttributes, type ReactNode } from "react";
import { cn } from "./cn";
import { CheckIcon } from "./icons";

export type CheckboxProps = {
  /** The accessible name, shown beside the box unless hideLabel is set. */
  label: ReactNode;
  /** Keep the name for assistive technology only (e.g. a table's row checkbox). */
  hideLabel?: boolean;
  checked?: boolean;
  defaultChecked?: boolean;
  /** Shows a dash and reports aria-checked="mixed" (e.g. some rows selected). */
  indeterminate?: boolean;
  disabled?: boolean;
  onChange?: (checked: boolean) => void;
  /** With a name the value is sent with the surrounding form while checked. */
  name?: string;
  value?: string;
  className?: string;
};

/** A checkbox that toggles by click, by its label and by Space (Headless UI). */
export function Checkbox({ label, hideLabel = false, className, ...props }: CheckboxProps) {
  return (
    <Field disabled={props.disabled} className={cn("inline-flex items-center gap-2", className)}>
      <HeadlessCheckbox
        {...props}
        className={cn(
          "group flex size-4 shrink-0 items-center justify-center rounded-sm border border-gray-300 bg-white text-white",
          "data-[checked]:border-primary data-[checked]:bg-primary data-[indeterminate]:border-primary data-[indeterminate]:bg-primary",
          "focus:outline-none data-[focus]:outline data-[focus]:outline-2 data-[focus]:outline-offset-2 data-[focus]:outline-primary",
          "data-[disabled]:cursor-not-allowed data-[disabled]:opacity-50",
          !props.disabled && "cursor-pointer",
        )}
      >
        {({ checked, indeterminate }) => (
          <>
            {indeterminate ? (
              <span aria-hidden="true" className="block h-0.5 w-2 rounded bg-current" />
            ) : (
              checked && <CheckIcon size={12} />
            )}
          </>
        )}
      </HeadlessCheckbox>
      <Label className={cn(hideLabel ? "sr-only" : "text-sm text-gray-800 data-[disabled]:opacity-50", !props.disabled && !hideLabel && "cursor-pointer")}>
        {label}
      </Label>
    </Field>
  );
}

/**
 * A plain HTML checkbox inside its label, for forms that must work without JavaScript (the Headless
 * one above toggles by script; without it, it only posts its initial state).
 */
export function PlainCheckbox({ label, className, ...props }: Omit<InputHTMLAttributes<HTMLInputElement>, "type"> & { label: ReactNode }) {
  return (
    <label className={cn("inline-flex cursor-pointer items-center gap-2 text-sm text-gray-800", className)}>
      <input type="checkbox" className="size-4 shrink-0 cursor-pointer accent-[var(--color-primary,#FD5C1F)]" {...props} />
      <span>{label}</span>
    </label>
  );
}
