import type { InitOptions } from "i18next";
import { NAMESPACE, resources, SUPPORTED_LANGUAGES } from "./resources";

/** Shared by the server and the browser, so both render the same text. */
export const i18nConfig = {
  supportedLngs: [...SUPPORTED_LANGUAGES],
  fallbackLng: "en",
  defaultNS: NAMESPACE,
  ns: [NAMESPACE],
  keySeparator: false,
  nsSeparator: false,
  interpolation: { escapeValue: false },
  resources,
} satisfies InitOptions;
