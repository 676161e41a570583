import { parseWithZod, unstable_coerceFormValue as coerceFormValue } from "@conform-to/zod/v4";
import * as z from "zod";

/** The spec's message for a required rule given as a bare boolean (translated where it is shown). */
export const REQUIRED_MESSAGE = "global.field.required";

/** A field left empty (missing, blank text, no option picked) reads as "required" rather than zod's type error. */
const requiredErrorMap: z.core.$ZodErrorMap = (issue) =>
  issue.code === "invalid_type" && issue.input === undefined ? REQUIRED_MESSAGE : undefined;

const isEmpty = (value: unknown) =>
  value === undefined || value === null || (typeof value === "string" && value.trim() === "") || (Array.isArray(value) && value.length === 0);

const valueAt = (payload: unknown, name: string) =>
  name.split(".").reduce<unknown>((value, key) => (value && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined), payload);

/**
 * Wraps a form schema so the named fields must not be empty (message global.field.required), next to
 * the schema's own rules for every other field. Form values arrive as strings, so the schema is
 * coerced as conform would (numbers, booleans, dates; empty text becomes undefined).
 */
export function withRequired<Schema extends z.ZodType>(schema: Schema, required: readonly string[] = []) {
  const coerced = coerceFormValue(schema);
  return z.unknown().transform((payload, ctx): z.output<Schema> => {
    const missing = required.filter((name) => isEmpty(valueAt(payload, name)));
    for (const name of missing) ctx.addIssue({ code: "custom", path: name.split("."), message: REQUIRED_MESSAGE, input: undefined });
    const result = coerced.safeParse(payload, { error: requiredErrorMap });
    if (result.success) return missing.length ? z.NEVER : (result.data as z.output<Schema>);
    for (const issue of result.error.issues) {
      // A field already reported empty keeps the one clear message.
      if (missing.includes(issue.path.join("."))) continue;
      ctx.addIssue({ code: "custom", path: issue.path, message: issue.message, input: issue.input });
    }
    return z.NEVER;
  });
}

/**
 * For actions: parses a submitted form with the same schema (and required fields) as its FormBuilder.
 * Return `submission.reply()` to show the errors under the fields.
 */
export function parseFormData<Schema extends z.ZodType>(formData: FormData | URLSearchParams, schema: Schema, required: readonly string[] = []) {
  return parseWithZod(formData, { schema: withRequired(schema, required), disableAutoCoercion: true });
}
