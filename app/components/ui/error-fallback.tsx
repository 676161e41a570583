import { useId, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { Button, buttonSizes } from "./button";
import { cn } from "./cn";

export type ErrorFallbackProps = {
  /** The HTTP status or error code, shown as "Error code: …" when given. */
  status?: number | string;
  /** Further details (e.g. the server's message), shown under the tip. */
  details?: ReactNode;
  /** Replaces the default heading (global.error.title). */
  title?: ReactNode;
  /** Replaces the default tip (global.error.tip). */
  tip?: ReactNode;
  /**
   * A link back to this address (global.error.back) instead of the Refresh button: for an answer to a
   * post, where reloading would send the same post again. A plain link, so it works without JavaScript.
   */
  backHref?: string;
  /** Replaces the Refresh button (or the back link): e.g. a link to the start page, which works without JavaScript. */
  action?: ReactNode;
  className?: string;
};

/** The error screen: a heading, a tip, optional details, and a Refresh button that reloads the page. */
export function ErrorFallback({ status, details, title, tip, backHref, action, className }: ErrorFallbackProps) {
  const { t } = useTranslation();
  const titleId = useId();
  return (
    <section role="alert" aria-labelledby={titleId} className={cn("flex flex-col items-center gap-3 px-6 py-16 text-center", className)}>
      <h1 id={titleId} className="text-xl font-semibold text-gray-900">
        {title ?? t("global.error.title")}
      </h1>
      <p className="text-sm text-gray-600">{tip ?? t("global.error.tip")}</p>
      {status !== undefined && <p className="text-sm text-gray-500">{t("global.error.status", { status })}</p>}
      {details && <div className="max-w-xl text-sm text-gray-500">{details}</div>}
      {action ?? (backHref ? (
        <a href={backHref} className={cn("inline-flex items-center justify-center rounded border border-primary bg-primary font-medium text-white hover:border-primary-dark hover:bg-primary-dark", buttonSizes.middle)}>
          {t("global.error.back")}
        </a>
      ) : (
        <Button onClick={() => window.location.reload()}>{t("global.refresh")}</Button>
      ))}
    </section>
  );
}
