import type { ShouldRevalidateFunction } from "@remix-run/react";

/**
 * After the administrator restarted or shut Ferry down from the dashboard (its power actions,
 * intent "restart" or "shutdown") the engine is going away: loaders asked again at once fail
 * whenever the engine has already left (a race a busy machine loses), and the page, which says
 * Ferry is restarting or shutting down, would give way to an error page. The root, the console's
 * layout and the dashboard keep what they loaded; after a restart the dashboard polls for the new
 * engine by itself.
 */
export const keepAfterShutdown: ShouldRevalidateFunction = ({ formData, defaultShouldRevalidate }) => {
  const intent = formData?.get("intent");
  return intent === "shutdown" || intent === "restart" ? false : defaultShouldRevalidate;
};
