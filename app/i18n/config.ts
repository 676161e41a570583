import type { InitOptions } from "i18next";
import { formatValue } from "../../contract/sizes";
import { NAMESPACE, resources, SUPPORTED_LANGUAGES } from "./resources";

/** Shared by the server and the browser, so both render the same text. */
export const i18nConfig = {
  supportedLngs: [...SUPPORTED_LANGUAGES],
  fallbackLng: "en",
  defaultNS: NAMESPACE,
  ns: [NAMESPACE],
  keySeparator: false,
  nsSeparator: false,
  // `{{limit, size}}` (the catalogue's byte counts) reads as a size, as the engine writes it.
  interpolation: { escapeValue: false, format: (value: unknown, format?: string) => String(formatValue(value, format)) },
  resources,
} satisfies InitOptions;
