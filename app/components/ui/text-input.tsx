import { forwardRef, useEffect, useId, useState, type InputHTMLAttributes, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { cn } from "./cn";

export type TextInputProps = Omit<InputHTMLAttributes<HTMLInputElement>, "size"> & {
  label: ReactNode;
  /** Help text under the label, linked to the input with aria-describedby. */
  description?: ReactNode;
  /** Error under the field; a known message key (e.g. "global.field.required") is translated. */
  error?: string;
  /** Classes for the wrapper; the input itself keeps the kit's look. */
  className?: string;
};

/**
 * A labelled text field that is a plain HTML input (name, defaultValue, required…) so it works in a
 * form without JavaScript. An error marks it aria-invalid and is read with it and announced.
 */
export const TextInput = forwardRef<HTMLInputElement, TextInputProps>(function TextInput(
  { label, description, error, className, id, type = "text", "aria-describedby": describedBy, ...props },
  ref,
) {
  const { t, i18n } = useTranslation();
  const autoId = useId();
  const inputId = id ?? `${autoId}-input`;
  const descriptionId = description ? `${autoId}-description` : undefined;
  const errorId = error ? `${autoId}-error` : undefined;
  const errorText = error && i18n.exists(error) ? t(error) : error;
  return (
    <div className={cn("flex flex-col gap-1", className)}>
      <label htmlFor={inputId} className="text-sm font-medium text-gray-800">
        {label}
        {props.required && (
          <span aria-hidden="true" className="ml-0.5 text-red-600">
            *
          </span>
        )}
      </label>
      {description && (
        <p id={descriptionId} className="text-xs text-gray-500">
          {description}
        </p>
      )}
      <input
        ref={ref}
        id={inputId}
        type={type}
        aria-invalid={error ? true : undefined}
        aria-describedby={[describedBy, descriptionId, errorId].filter(Boolean).join(" ") || undefined}
        className={cn(
          "h-8 rounded border bg-white px-3 text-sm text-gray-900 placeholder:text-gray-400",
          "focus:outline-none focus:ring-1 disabled:cursor-not-allowed disabled:bg-gray-100",
          error ? "border-red-600 focus:ring-red-600" : "border-gray-300 focus:border-primary focus:ring-primary",
        )}
        {...props}
      />
      {error && (
        <p id={errorId} role="alert" className="text-xs text-red-600">
          {errorText}
        </p>
      )}
    </div>
  );
});

/**
 * How many answers a form has had: use it in a password field's key, so each answer gives the field
 * a fresh, empty input and a refused password does not stay typed in.
 */
export function useAnswerCount(lastResult: unknown): number {
  const [answers, setAnswers] = useState(0);
  useEffect(() => {
    if (lastResult) setAnswers((n) => n + 1);
  }, [lastResult]);
  return answers;
}
