import { cn } from "./cn";

export type ProgressProps = {
  /** Accessible name of the bar (what is progressing). */
  label: string;
  value: number;
  max: number;
  /** Text under the bar (counts, speed, time left); also the bar's aria-valuetext. */
  detail?: string;
  className?: string;
};

/** A determinate progress bar: role progressbar with its percent, and a line of detail under it. */
export function Progress({ label, value, max, detail, className }: ProgressProps) {
  const percent = max > 0 ? Math.min(100, Math.max(0, Math.floor((value / max) * 100))) : 0;
  return (
    <div className={cn("flex flex-col gap-1", className)}>
      <div
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
        aria-valuetext={detail ? `${percent}% ${detail}` : `${percent}%`}
        className="h-2 w-full overflow-hidden rounded bg-gray-200"
      >
        <div className="h-full bg-primary transition-[width]" style={{ width: `${percent}%` }} />
      </div>
      {detail && <p className="text-xs text-gray-600">{detail}</p>}
    </div>
  );
}
