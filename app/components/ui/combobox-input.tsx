import { Combobox, ComboboxButton, ComboboxInput as HeadlessInput, ComboboxOption, ComboboxOptions, Field, Label } from "@headlessui/react";
import { useId, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { cn } from "./cn";
import { ChevronDownIcon } from "./icons";

export type ComboboxInputProps = {
  label: ReactNode;
  /** The typed text (free text: the suggestions only help). */
  value: string;
  onChange: (value: string) => void;
  /** Suggestions, shown as `display(option)`; choosing one puts it in the field. */
  options: readonly string[];
  display?: (option: string) => string;
  /** The accessible name of the button that opens the suggestions. */
  buttonLabel: string;
  /** The accessible name of the list of suggestions. */
  listLabel: string;
  name?: string;
  placeholder?: string;
  error?: string;
  required?: boolean;
  className?: string;
  inputClassName?: string;
};

/** A text field with a dropdown of suggestions (Headless UI Combobox), e.g. remembered device ids. */
export function ComboboxInput({ label, value, onChange, options, display = (o) => o, buttonLabel, listLabel, name, placeholder, error, required, className, inputClassName }: ComboboxInputProps) {
  const { t, i18n } = useTranslation();
  const errorId = useId();
  const errorText = error && i18n.exists(error) ? t(error) : error;
  return (
    <Field className={cn("flex flex-col gap-1", className)}>
      <Label className="text-sm font-medium text-gray-800">
        {label}
        {required && (
          <span aria-hidden="true" className="ml-0.5 text-red-600">
            *
          </span>
        )}
      </Label>
      <Combobox value={value} onChange={(v: string | null) => onChange(v ?? "")} immediate={false}>
        <div className="relative">
          <HeadlessInput
            name={name}
            placeholder={placeholder}
            autoComplete="off"
            displayValue={(v: string) => v}
            onChange={(event) => onChange(event.target.value)}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? errorId : undefined}
            className={cn(
              "h-8 w-full rounded border bg-white pl-3 pr-9 text-sm text-gray-900 placeholder:text-gray-400 focus:outline-none focus:ring-1",
              error ? "border-red-600 focus:ring-red-600" : "border-gray-300 focus:border-primary focus:ring-primary",
              inputClassName,
            )}
          />
          {options.length > 0 && (
            <ComboboxButton aria-label={buttonLabel} className="absolute inset-y-0 right-0 flex w-8 items-center justify-center text-gray-500 hover:text-gray-800 focus-visible:outline focus-visible:outline-2 focus-visible:outline-primary">
              <ChevronDownIcon />
            </ComboboxButton>
          )}
        </div>
        {options.length > 0 && (
          <ComboboxOptions anchor="bottom start" aria-label={listLabel} className="z-20 w-[var(--input-width)] rounded border border-gray-200 bg-white py-1 shadow-lg [--anchor-gap:4px] empty:invisible">
            {options.map((option) => (
              <ComboboxOption key={option} value={option} className="cursor-pointer px-3 py-1.5 font-mono text-sm text-gray-800 data-[focus]:bg-gray-100">
                {display(option)}
              </ComboboxOption>
            ))}
          </ComboboxOptions>
        )}
      </Combobox>
      {error && (
        <p id={errorId} role="alert" className="text-xs text-red-600">
          {errorText}
        </p>
      )}
    </Field>
  );
}
