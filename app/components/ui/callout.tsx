import type { ReactNode } from "react";
import { cn } from "./cn";

const TONES = {
  info: "border-gray-200 bg-gray-50 text-gray-800",
  success: "border-green-300 bg-green-50 text-green-900",
  warning: "border-amber-300 bg-amber-50 text-amber-900",
  error: "border-red-300 bg-red-50 text-red-800",
} as const;

/**
 * A short message set off from the page (a setting the server lacks, the outcome of a test):
 * errors are announced at once (role alert), the others politely (role status).
 */
export function Callout({ tone = "info", children, className }: { tone?: keyof typeof TONES; children: ReactNode; className?: string }) {
  return (
    <div role={tone === "error" ? "alert" : "status"} className={cn("rounded border px-3 py-2 text-sm", TONES[tone], className)}>
      {children}
    </div>
  );
}
