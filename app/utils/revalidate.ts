import type { ShouldRevalidateFunction } from "@remix-run/react";

/**
 * After the administrator shut Ferry down from the dashboard (its power action, intent "shutdown")
 * the engine is gone and the web follows it: loaders asked again would only fail, and the page,
 * which says Ferry is shutting down, would give way to an error page. The root, the console's
 * layout and the dashboard keep what they loaded.
 */
export const keepAfterShutdown: ShouldRevalidateFunction = ({ formData, defaultShouldRevalidate }) =>
  formData?.get("intent") === "shutdown" ? false : defaultShouldRevalidate;
