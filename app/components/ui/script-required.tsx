import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { cn } from "./cn";

/** Marks what only works with JavaScript: the <noscript> style below hides it on a page without. */
const SCRIPT_ONLY = "data-script-only";

export type ScriptRequiredProps = {
  /** What shows while the script works (a spinner waiting for the file server, a live list). */
  children: ReactNode;
  /** The plain message of a browser without JavaScript; defaults to global.needs-javascript. */
  message?: ReactNode;
  className?: string;
};

/**
 * Content that needs JavaScript to ever be more than a spinner. Without JavaScript it is hidden and a
 * plain message says the page needs JavaScript, in the page's language, instead of spinning for
 * ever. `<noscript>` is rendered by the server only: with JavaScript the browser ignores it.
 */
export function ScriptRequired({ children, message, className }: ScriptRequiredProps) {
  const { t } = useTranslation();
  return (
    <>
      <noscript>
        <style>{`[${SCRIPT_ONLY}]{display:none!important}`}</style>
        <p role="alert" className={cn("mx-auto max-w-xl rounded border border-amber-300 bg-amber-50 px-4 py-3 text-center text-sm text-gray-800", className)}>
          {message ?? t("global.needs-javascript")}
        </p>
      </noscript>
      <div {...{ [SCRIPT_ONLY]: "" }} className="contents">
        {children}
      </div>
    </>
  );
}
