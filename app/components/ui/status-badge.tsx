import type { ReactNode } from "react";
import { cn } from "./cn";

/** The tones of a status: neutral (idle, not set), info (queued, running), success, warning (stopping, stopped), danger (failed). */
export type BadgeTone = "neutral" | "info" | "success" | "warning" | "danger";

const TONES: Record<BadgeTone, string> = {
  neutral: "bg-gray-100 text-gray-800 ring-gray-300",
  info: "bg-blue-50 text-blue-800 ring-blue-300",
  success: "bg-green-50 text-green-800 ring-green-300",
  warning: "bg-amber-50 text-amber-900 ring-amber-300",
  danger: "bg-red-50 text-red-800 ring-red-300",
};

/** A status as a small coloured label; the text says it, the colour only repeats it. */
export function StatusBadge({ tone, children, busy = false }: { tone: BadgeTone; children: ReactNode; busy?: boolean }) {
  return (
    <span className={cn("inline-flex items-center gap-1 whitespace-nowrap rounded px-2 py-0.5 text-xs font-medium ring-1 ring-inset", TONES[tone])}>
      {busy && <span aria-hidden="true" className="size-1.5 animate-pulse rounded-full bg-current" />}
      {children}
    </span>
  );
}
