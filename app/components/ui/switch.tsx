import { Field, Label, Description, Switch as HeadlessSwitch } from "@headlessui/react";
import type { ReactNode } from "react";
import { cn } from "./cn";

export type SwitchProps = {
  /** The switch's accessible name, shown beside it. */
  label: ReactNode;
  /** What the current position means, read with the switch. */
  description?: ReactNode;
  checked: boolean;
  onChange: (checked: boolean) => void;
  disabled?: boolean;
  className?: string;
};

/** An on/off switch (Headless UI: role="switch", Space toggles), labelled and described. */
export function Switch({ label, description, checked, onChange, disabled = false, className }: SwitchProps) {
  return (
    <Field disabled={disabled} className={cn("flex items-center gap-3", className)}>
      <HeadlessSwitch
        checked={checked}
        onChange={onChange}
        className={cn(
          "group relative inline-flex h-6 w-11 shrink-0 items-center rounded-full transition-colors",
          "focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-primary data-[disabled]:cursor-not-allowed data-[disabled]:opacity-50",
          checked ? "bg-primary" : "bg-gray-400",
        )}
      >
        <span aria-hidden="true" className={cn("inline-block size-4 rounded-full bg-white shadow transition-transform", checked ? "translate-x-6" : "translate-x-1")} />
      </HeadlessSwitch>
      <span className="flex flex-col">
        <Label className="text-sm font-medium text-gray-800">{label}</Label>
        {description && <Description className="text-xs text-gray-600">{description}</Description>}
      </span>
    </Field>
  );
}
