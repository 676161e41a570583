import { useField, type FieldMetadata } from "@conform-to/react";
import { type FormEvent, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { cn } from "./cn";
import { digitsOnly } from "./number-input";

export type FieldType =
  | "input"
  | "password"
  | "inputNumber"
  | "positive"
  | "select"
  | "switch"
  | "datePicker"
  | "rangePicker"
  | "radioGroup"
  | "checkbox"
  | "checkboxGroup"
  | "textarea"
  | "file"
  | "timePicker"
  | "custom";

export type FieldOption = { label: ReactNode; value: string; disabled?: boolean };

/** What a custom field gets to wire its own control into the form (name it `name` so it is submitted). */
export type CustomFieldProps = {
  id: string;
  name: string;
  labelId: string;
  errorId: string;
  invalid: boolean;
  required: boolean;
  defaultValue: unknown;
};

export type FormField = {
  /** The form value's name; nested names use dots ("range.start"). */
  name: string;
  label: ReactNode;
  type: FieldType;
  /** A bare required rule: an empty value shows global.field.required. */
  required?: boolean;
  options?: readonly FieldOption[];
  placeholder?: string;
  /** Help text under the control (the field's rule or an example). */
  description?: ReactNode;
  disabled?: boolean;
  /** For type "file": the file types offered (the input's accept, e.g. ".pem,.crt"). */
  accept?: string;
  /** The control for type "custom". */
  render?: (props: CustomFieldProps) => ReactNode;
};

/** Which types are a group of controls (named by aria-labelledby) rather than one labelled control. */
export const groupTypes: ReadonlySet<FieldType> = new Set(["radioGroup", "checkboxGroup", "rangePicker"]);

const boxClass = (invalid: boolean) =>
  cn(
    "w-full rounded border bg-white px-3 text-sm text-gray-900 placeholder:text-gray-400",
    "focus:outline-none focus:ring-1 disabled:cursor-not-allowed disabled:bg-gray-100",
    invalid ? "border-red-600 focus:ring-red-600" : "border-gray-300 focus:border-primary focus:ring-primary",
  );

const tickClass = "size-4 accent-[var(--color-primary,#FD5C1F)] cursor-pointer disabled:cursor-not-allowed";

const asString = (value: unknown) => (typeof value === "string" ? value : undefined);
const asList = (value: unknown) => (Array.isArray(value) ? value : typeof value === "string" ? [value] : []);

type ControlProps = {
  field: FormField;
  meta: FieldMetadata;
  /** Whether errors are shown for the field (a range counts its two dates' errors too). */
  invalid: boolean;
  labelId: string;
  required: boolean;
};

/** One field's control(s), uncontrolled so the browser posts them and a reset button restores them. */
export function FieldControl({ field, meta, invalid, labelId, required }: ControlProps) {
  const { t } = useTranslation();
  const aria = { "aria-invalid": invalid || undefined, "aria-describedby": invalid ? meta.errorId : undefined };
  const common = { id: meta.id, name: meta.name, disabled: field.disabled, ...aria };
  const text = { ...common, required, placeholder: field.placeholder, defaultValue: asString(meta.initialValue) };
  switch (field.type) {
    case "input":
    case "password":
      return (
        <input
          {...text}
          type={field.type === "password" ? "password" : "text"}
          minLength={meta.minLength}
          maxLength={meta.maxLength}
          pattern={meta.pattern}
          className={cn(boxClass(invalid), "h-8")}
        />
      );
    case "inputNumber":
      return <input {...text} type="number" min={meta.min} max={meta.max} step={meta.step} className={cn(boxClass(invalid), "h-8")} />;
    case "positive":
      return (
        <input
          {...text}
          type="text"
          inputMode="numeric"
          pattern="[0-9]*"
          autoComplete="off"
          // Runs before conform's document listener validates, so the check sees the digits only.
          onInput={(event: FormEvent<HTMLInputElement>) => {
            const input = event.currentTarget;
            const digits = digitsOnly(input.value);
            if (digits !== input.value) input.value = digits;
          }}
          className={cn(boxClass(invalid), "h-8")}
        />
      );
    case "datePicker":
    case "timePicker":
      return <input {...text} type={field.type === "datePicker" ? "date" : "time"} min={meta.min} max={meta.max} className={cn(boxClass(invalid), "h-8")} />;
    case "file":
      // The form needs encType="multipart/form-data" (FormBuilder's encType) to post the file.
      return (
        <input
          {...common}
          required={required}
          type="file"
          accept={field.accept}
          className={cn(
            boxClass(invalid),
            "h-8 py-1 file:mr-3 file:cursor-pointer file:rounded file:border-0 file:bg-gray-100 file:px-2 file:text-sm file:text-gray-800 hover:file:bg-gray-200",
          )}
        />
      );
    case "textarea":
      return <textarea {...text} minLength={meta.minLength} maxLength={meta.maxLength} rows={4} className={cn(boxClass(invalid), "py-1.5")} />;
    case "select":
      return (
        <select {...common} required={required} defaultValue={asString(meta.initialValue) ?? ""} className={cn(boxClass(invalid), "h-8")}>
          <option value="">{field.placeholder ?? t("global.select.placeholder")}</option>
          {field.options?.map((option) => (
            <option key={option.value} value={option.value} disabled={option.disabled}>
              {typeof option.label === "string" ? option.label : option.value}
            </option>
          ))}
        </select>
      );
    case "checkbox":
      return <input {...common} required={required} type="checkbox" defaultChecked={meta.initialValue === "on"} className={cn(tickClass, "mt-2")} />;
    case "switch":
      return (
        <span className="relative mt-1.5 inline-flex">
          <input
            {...common}
            type="checkbox"
            role="switch"
            defaultChecked={meta.initialValue === "on"}
            className={cn(
              "peer h-5 w-9 cursor-pointer appearance-none rounded-full bg-gray-300 transition-colors checked:bg-primary disabled:cursor-not-allowed disabled:opacity-50",
              "focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-primary",
            )}
          />
          <span aria-hidden="true" className="pointer-events-none absolute left-0.5 top-0.5 size-4 rounded-full bg-white shadow transition-transform peer-checked:translate-x-4" />
        </span>
      );
    case "radioGroup":
    case "checkboxGroup": {
      const radio = field.type === "radioGroup";
      const picked = asList(meta.initialValue);
      return (
        <div role={radio ? "radiogroup" : "group"} aria-labelledby={labelId} {...aria} className="flex min-h-8 flex-wrap items-center gap-x-4 gap-y-1">
          {field.options?.map((option) => (
            <label key={option.value} className="inline-flex cursor-pointer items-center gap-1.5 text-sm text-gray-800">
              <input
                type={radio ? "radio" : "checkbox"}
                name={meta.name}
                value={option.value}
                // A required checkbox would demand every box; only radios carry the browser rule.
                required={radio && required}
                disabled={field.disabled || option.disabled}
                defaultChecked={picked.includes(option.value)}
                className={tickClass}
              />
              {option.label}
            </label>
          ))}
        </div>
      );
    }
    case "rangePicker":
      return <RangeControl field={field} labelId={labelId} required={required} errorId={meta.errorId} invalid={invalid} />;
    case "custom":
      return (
        <>
          {field.render?.({
            id: meta.id,
            name: meta.name,
            labelId,
            errorId: meta.errorId,
            invalid,
            required,
            defaultValue: meta.initialValue,
          })}
        </>
      );
  }
}

/** Two native date inputs submitted as `<name>.start` and `<name>.end`. */
function RangeControl({ field, labelId, required, errorId, invalid }: { field: FormField; labelId: string; required: boolean; errorId: string; invalid: boolean }) {
  const { t } = useTranslation();
  const [start] = useField<string>(`${field.name}.start`);
  const [end] = useField<string>(`${field.name}.end`);
  const part = (meta: FieldMetadata<string>, label: string) => (
    <input
      key={meta.key}
      id={meta.id}
      name={meta.name}
      type="date"
      aria-label={label}
      required={required}
      disabled={field.disabled}
      defaultValue={asString(meta.initialValue)}
      aria-invalid={invalid || undefined}
      className={cn(boxClass(invalid), "h-8 min-w-0 flex-1")}
    />
  );
  return (
    <div role="group" aria-labelledby={labelId} aria-describedby={invalid ? errorId : undefined} className="flex items-center gap-2">
      {part(start, t("global.range.start"))}
      <span aria-hidden="true" className="text-gray-400">
        ~
      </span>
      {part(end, t("global.range.end"))}
    </div>
  );
}
