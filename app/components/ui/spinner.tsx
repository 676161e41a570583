import { useTranslation } from "react-i18next";
import { cn } from "./cn";

type GlyphProps = { size?: number; className?: string };

/** The spinning ring alone, hidden from assistive technology (buttons use it with aria-busy). */
export function SpinnerGlyph({ size = 16, className }: GlyphProps) {
  return (
    <svg
      aria-hidden="true"
      focusable="false"
      width={size}
      height={size}
      viewBox="0 0 24 24"
      fill="none"
      className={cn("animate-spin", className)}
    >
      <circle cx="12" cy="12" r="10" stroke="currentColor" strokeWidth="3" className="opacity-25" />
      <path d="M22 12a10 10 0 0 0-10-10" stroke="currentColor" strokeWidth="3" strokeLinecap="round" />
    </svg>
  );
}

export type SpinnerProps = GlyphProps & {
  /** Accessible name; defaults to the translated global.loading. */
  label?: string;
};

/** A loading indicator announced as a status ("Loading" / "加载中"). */
export function Spinner({ size = 16, className, label }: SpinnerProps) {
  const { t } = useTranslation();
  return (
    <span role="status" aria-label={label ?? t("global.loading")} className={cn("inline-flex text-primary", className)}>
      <SpinnerGlyph size={size} />
    </span>
  );
}
