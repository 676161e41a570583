import { isRouteErrorResponse, useLocation, useRouteError } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { formatSize } from "~/utils/format";
import { buttonSizes } from "./ui/button";
import { cn } from "./ui/cn";
import { ErrorFallback } from "./ui/error-fallback";

/** Statuses with their own words: what went wrong and what to do (global.error.<status>.title / .tip). */
const EXPLAINED = new Set([400, 403, 404, 500]);

/**
 * The one error page of every route (the root re-exports it; routes that keep their frame export it
 * too): the product's styled page in the reader's language, saying what went wrong and what to do.
 * A thrown 4xx/5xx Response gets its status's words; anything else (a crash) the 500 words.
 */
export function GeneralErrorBoundary() {
  const error = useRouteError();
  const { t } = useTranslation();
  const location = useLocation();
  const status = isRouteErrorResponse(error) ? error.status : 500;
  if (status === 413) {
    // A body over the form cap (utils/form.server.ts): the limit in the reader's language, and a way
    // back to the form (reloading would post the same body again).
    const limit = isRouteErrorResponse(error) && typeof error.data?.limit === "number" ? formatSize(error.data.limit, 0) : null;
    const tip = limit ? t("global.error.too-large", { limit }) : undefined;
    return <ErrorFallback status={413} title={t("global.error.too-large.title")} tip={tip} backHref={`${location.pathname}${location.search}`} />;
  }
  const known = EXPLAINED.has(status) ? status : status >= 500 ? 500 : 400;
  // A plain link: it works without JavaScript, and reloading an address that is wrong would not help.
  const home = (
    <a href="/" className={cn("inline-flex items-center justify-center rounded border border-primary bg-primary font-medium text-white hover:border-primary-dark hover:bg-primary-dark", buttonSizes.middle)}>
      {t("global.error.home")}
    </a>
  );
  return (
    <div className="flex min-h-full flex-col items-center justify-center">
      <ErrorFallback status={status} title={t(`global.error.${known}.title`)} tip={t(`global.error.${known}.tip`)} action={home} />
    </div>
  );
}
