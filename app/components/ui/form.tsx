import { FormProvider, useField, useForm, type DefaultValue, type Submission, type SubmissionResult } from "@conform-to/react";
import { getZodConstraint } from "@conform-to/zod/v4";
import { type CSSProperties, type ElementType, type FormEvent, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import type * as z from "zod";
import { Button } from "./button";
import { cn } from "./cn";
import { FieldControl, groupTypes, type FormField } from "./form-controls";
import { parseFormData } from "./form-schema";

export { parseFormData, withRequired, REQUIRED_MESSAGE } from "./form-schema";
export type { CustomFieldProps, FieldOption, FieldType, FormField } from "./form-controls";

export type FormLayout = "horizontal" | "vertical" | "inline" | "search";

/** Spec: the grid has 24 columns; a horizontal form gives the label 4 and the field 20. */
export const FORM_GRID_COLUMNS = 24;
export const HORIZONTAL_LABEL_SPAN = 4;
export const HORIZONTAL_FIELD_SPAN = 20;

const span = (columns: number): CSSProperties => ({ gridColumn: `span ${columns} / span ${columns}` });
const gridStyle: CSSProperties = { display: "grid", gridTemplateColumns: `repeat(${FORM_GRID_COLUMNS}, minmax(0, 1fr))` };

export type FormBuilderProps<Schema extends z.ZodType> = {
  /** One zod schema per form, shared with the action (parseFormData). */
  schema: Schema;
  fields: readonly FormField[];
  layout?: FormLayout;
  id?: string;
  /** The values the fields start with (and a Reset returns to). */
  defaultValue?: Record<string, unknown>;
  /** The action's `submission.reply()`: shows the server's errors under the fields. */
  lastResult?: SubmissionResult<string[]> | null;
  action?: string;
  method?: "get" | "post";
  /** "multipart/form-data" for a form with file fields. */
  encType?: "application/x-www-form-urlencoded" | "multipart/form-data";
  /** The form element to render, e.g. Remix's `Form`; a plain <form> by default. */
  as?: ElementType;
  /** Runs on a submit that passed validation (call event.preventDefault() to handle it in script). */
  onSubmit?: (event: FormEvent<HTMLFormElement>, value: z.output<Schema>) => void;
  /** Runs after the Reset button cleared the fields (search layout). */
  onReset?: () => void;
  /** Buttons or other content after the fields (e.g. a submit button). */
  children?: ReactNode;
  className?: string;
};

/** Names the required rules check: a range's two dates each. */
const requiredNames = (fields: readonly FormField[]) =>
  fields.filter((f) => f.required).flatMap((f) => (f.type === "rangePicker" ? [`${f.name}.start`, `${f.name}.end`] : [f.name]));

/**
 * A form built from a zod schema and field descriptors, validated with conform on every input
 * (and again on every input once shown invalid), with errors under each field.
 *
 * It is a real <form method="post"> of native controls, so it posts without JavaScript. Note: until
 * the script runs, the constraint attributes from getZodConstraint (required, minlength…) make the
 * browser itself block a submission it finds invalid, so the server never sees it; once hydrated,
 * conform sets noValidate and shows its own messages instead.
 */
export function FormBuilder<Schema extends z.ZodType>({
  schema,
  fields,
  layout = "horizontal",
  id,
  defaultValue,
  lastResult,
  action,
  method = "post",
  encType,
  as: Component = "form",
  onSubmit,
  onReset,
  children,
  className,
}: FormBuilderProps<Schema>) {
  const { t, i18n } = useTranslation();
  const required = requiredNames(fields);
  // The field descriptors, not the types, say what the form holds, so conform sees a loose record.
  const [form] = useForm<Record<string, unknown>, z.output<Schema>>({
    id,
    lastResult,
    defaultValue: defaultValue as DefaultValue<Record<string, unknown>>,
    constraint: getZodConstraint(schema),
    shouldValidate: "onInput",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseFormData(formData, schema, required) as Submission<Record<string, unknown>, string[], z.output<Schema>>,
    onSubmit: (event, { submission }) => {
      if (submission?.status === "success") onSubmit?.(event, submission.value);
    },
  });
  const inline = layout === "inline" || layout === "search";
  return (
    <FormProvider context={form.context}>
      <Component
        id={form.id}
        method={method}
        action={action}
        encType={encType}
        onSubmit={form.onSubmit}
        onReset={onReset}
        noValidate={form.noValidate}
        data-layout={layout}
        className={cn(inline ? "flex flex-wrap items-start gap-x-6 gap-y-3" : "flex flex-col gap-4", className)}
      >
        {form.errors?.length ? (
          <div id={form.errorId} role="alert" className="text-sm text-red-600">
            {form.errors.map((message) => (
              <p key={message}>{i18n.exists(message) ? t(message) : message}</p>
            ))}
          </div>
        ) : null}
        {fields.map((field) => (
          <FieldItem key={field.name} field={field} layout={layout} required={required.includes(field.name) || !!field.required} />
        ))}
        {layout === "search" && (
          <div className="flex items-center gap-2">
            <Button type="submit">{t("global.search")}</Button>
            <Button type="reset" variant="outlined">
              {t("global.reset")}
            </Button>
          </div>
        )}
        {children && (
          <div style={layout === "horizontal" ? gridStyle : undefined} className="flex items-center gap-2">
            <div
              style={layout === "horizontal" ? { gridColumn: `${HORIZONTAL_LABEL_SPAN + 1} / span ${HORIZONTAL_FIELD_SPAN}` } : undefined}
              className={layout === "vertical" ? "w-full" : undefined}
            >
              {children}
            </div>
          </div>
        )}
      </Component>
    </FormProvider>
  );
}

/**
 * A label, its control, its description and the errors beneath it, laid out for the form's layout.
 * Exported for forms that place fields themselves (the step form): inside conform's FormProvider.
 */
export function FieldItem({ field, layout, required: requiredRule }: { field: FormField; layout: FormLayout; required: boolean }) {
  const { t, i18n } = useTranslation();
  const [meta] = useField(field.name);
  const labelId = `${meta.id}-label`;
  const required = requiredRule || !!meta.required;
  // A range reports errors on its two dates as well as on itself.
  const messages = field.type === "rangePicker" ? Object.values(meta.allErrors).flat() : (meta.errors ?? []);
  const horizontal = layout === "horizontal";
  const inline = layout === "inline" || layout === "search";
  const LabelTag = groupTypes.has(field.type) ? "span" : "label";
  return (
    <div style={horizontal ? gridStyle : undefined} className={cn(horizontal ? "gap-x-3" : inline ? "flex items-start gap-2" : "flex flex-col gap-1")}>
      <LabelTag
        id={labelId}
        htmlFor={LabelTag === "label" ? meta.id : undefined}
        style={horizontal ? span(HORIZONTAL_LABEL_SPAN) : undefined}
        className={cn("text-sm font-medium text-gray-800", (horizontal || inline) && "py-1.5 leading-5", horizontal && "text-right")}
      >
        {required && (
          <span aria-hidden="true" className="mr-0.5 text-red-600">
            *
          </span>
        )}
        {field.label}
      </LabelTag>
      <div style={horizontal ? span(HORIZONTAL_FIELD_SPAN) : undefined} className={cn("flex flex-col gap-1", inline && "min-w-48")}>
        <FieldControl key={meta.key} field={field} meta={meta} invalid={messages.length > 0} labelId={labelId} required={required} />
        {field.description && <p className="text-xs text-gray-600">{field.description}</p>}
        {messages.length > 0 && (
          <div id={meta.errorId} role="alert" className="text-xs text-red-600">
            {messages.map((message) => (
              <p key={message}>{i18n.exists(message) ? t(message) : message}</p>
            ))}
          </div>
        )}
      </div>
    </div>
  );
}
