import { type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { cn } from "./cn";

export type EmptyProps = {
  /** The text under the picture; defaults to the translated global.no-data ("No data" / "暂无数据"). */
  description?: ReactNode;
  /** Extra content under the text, e.g. a button that creates the first item. */
  children?: ReactNode;
  className?: string;
};

/** The empty-data placeholder: a decorative picture and a short text. */
export function Empty({ description, children, className }: EmptyProps) {
  const { t } = useTranslation();
  return (
    <div className={cn("flex flex-col items-center justify-center gap-2 py-8 text-center", className)}>
      <EmptyIllustration />
      <p className="text-sm text-gray-500">{description ?? t("global.no-data")}</p>
      {children}
    </div>
  );
}

/** An open, empty tray; decoration only (the text says what it means). */
function EmptyIllustration() {
  return (
    <svg aria-hidden="true" focusable="false" width="96" height="64" viewBox="0 0 96 64" fill="none">
      <ellipse cx="48" cy="56" rx="40" ry="6" className="fill-gray-100" />
      <path d="M18 24 30 10h36l12 14v22a4 4 0 0 1-4 4H22a4 4 0 0 1-4-4z" className="fill-white stroke-gray-300" strokeWidth="1.5" />
      <path
        d="M18 24h18a4 4 0 0 1 4 4 8 8 0 0 0 16 0 4 4 0 0 1 4-4h18"
        className="fill-gray-50 stroke-gray-300"
        strokeWidth="1.5"
        strokeLinejoin="round"
      />
    </svg>
  );
}
