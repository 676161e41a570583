import { forwardRef, useState, type ChangeEvent } from "react";
import { TextInput, type TextInputProps } from "./text-input";

/** Keeps ASCII digits only: "a1b2" → "12", "１２3" → "3". */
export const digitsOnly = (text: string) => text.replace(/[^0-9]/g, "");

export type NumberInputProps = Omit<TextInputProps, "value" | "defaultValue" | "onChange" | "type"> & {
  /** The digits shown (controlled); leave out to let the input keep its own. */
  value?: string;
  defaultValue?: string;
  /** Called with the digits left after every non-digit is stripped. */
  onChange?: (digits: string) => void;
};

/**
 * A whole-number field: every non-digit is stripped as the user types or pastes, and the value stays
 * a digit string (no float rounding, leading zeros kept). Label and error behave as in TextInput.
 */
export const NumberInput = forwardRef<HTMLInputElement, NumberInputProps>(function NumberInput(
  { value, defaultValue = "", onChange, ...props },
  ref,
) {
  const [own, setOwn] = useState(() => digitsOnly(defaultValue));
  const shown = value === undefined ? own : digitsOnly(value);
  const handleChange = (event: ChangeEvent<HTMLInputElement>) => {
    const digits = digitsOnly(event.target.value);
    if (value === undefined) setOwn(digits);
    onChange?.(digits);
  };
  return <TextInput ref={ref} type="text" inputMode="numeric" pattern="[0-9]*" autoComplete="off" {...props} value={shown} onChange={handleChange} />;
});
