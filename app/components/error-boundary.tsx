import { isRouteErrorResponse, useLocation, useRouteError } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { formatSize } from "~/utils/format";
import { ButtonLink } from "./ui/button";
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
  // A plain link: it works without JavaScript, and reloading an address that is wrong would not help.
  const home = (variant: "contained" | "outlined") => (
    <ButtonLink href="/" variant={variant}>
      {t("global.error.home")}
    </ButtonLink>
  );
  if (status === 413) {
    // A body over the form cap (utils/form.server.ts): the limit in the reader's language, a way back
    // to the form (reloading would post the same body again) and, as everywhere, to the start page.
    const limit = isRouteErrorResponse(error) && typeof error.data?.limit === "number" ? formatSize(error.data.limit, 0) : null;
    const tip = limit ? t("global.error.too-large", { limit }) : undefined;
    const actions = (
      <div className="flex flex-wrap justify-center gap-2">
        <ButtonLink href={`${location.pathname}${location.search}`}>{t("global.error.back")}</ButtonLink>
        {home("outlined")}
      </div>
    );
    return (
      <div className="flex min-h-full flex-col items-center justify-center">
        <ErrorFallback status={413} title={t("global.error.too-large.title")} tip={tip} action={actions} />
      </div>
    );
  }
  const known = EXPLAINED.has(status) ? status : status >= 500 ? 500 : 400;
  return (
    <div className="flex min-h-full flex-col items-center justify-center">
      <ErrorFallback status={status} title={t(`global.error.${known}.title`)} tip={t(`global.error.${known}.tip`)} action={home("contained")} />
    </div>
  );
}
