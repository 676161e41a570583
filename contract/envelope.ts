import * as z from "zod";

/** Every REST response: `{ code, value, result, message, data }`; success is code 200, result true. */
export interface Envelope<T = unknown> {
  code: number;
  value: string;
  result: boolean;
  message: string;
  data: T | null;
}

export function envelopeSchema<T extends z.ZodType>(data: T) {
  return z.object({
    code: z.number().int(),
    value: z.string(),
    result: z.boolean(),
    message: z.string(),
    data: data.nullable(),
  });
}

export type Lang = "en" | "zh";

/** `zh…` anywhere first in Accept-Language gives Chinese; anything else English (spec section 1). */
export function langFromHeader(header: string | undefined): Lang {
  const first = (header ?? "").split(",")[0]?.trim().toLowerCase() ?? "";
  return first.startsWith("zh") ? "zh" : "en";
}
