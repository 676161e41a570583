import type { ReactNode } from "react";
import { cn } from "./cn";

/**
 * One fact: its term, its value and how the value reads: `"mono"` for one read character by
 * character (a link, a fingerprint), `"list"` / `"mono-list"` for several values (an array), one
 * list item each.
 */
export type Fact = readonly [term: ReactNode, value: ReactNode, look?: FactLook];
export type FactLook = "mono" | "list" | "mono-list";

const MONO = "font-mono text-xs leading-5";

function FactValue({ value, look }: { value: ReactNode; look?: FactLook }) {
  if ((look === "list" || look === "mono-list") && Array.isArray(value)) {
    return (
      <ul className={cn("flex flex-col gap-0.5", look === "mono-list" && MONO)}>
        {value.map((item, index) => (
          <li key={index}>{item}</li>
        ))}
      </ul>
    );
  }
  return <>{value}</>;
}

const TERM_WIDTH = {
  /** As wide as the longest term. */
  fit: "grid-cols-[max-content_minmax(0,1fr)]",
  /** A fixed 12rem, so several lists on one screen line up (certificate, licence). */
  wide: "grid-cols-[12rem_minmax(0,1fr)]",
} as const;

/**
 * A definition list of facts: terms on the left in grey, values on the right, long values broken
 * anywhere rather than widening the page. Falsy rows are left out, so a page can write
 * `cond && [term, value]`.
 */
export function Facts({
  rows,
  label,
  terms = "fit",
  className,
}: {
  rows: ReadonlyArray<Fact | false | null | undefined>;
  /** Accessible name of the list, when the page holds more than one. */
  label?: string;
  terms?: keyof typeof TERM_WIDTH;
  className?: string;
}) {
  return (
    <dl aria-label={label} className={cn("grid gap-x-4 gap-y-1.5 text-sm", TERM_WIDTH[terms], className)}>
      {rows.map((row, index) =>
        row ? (
          <div key={index} className="contents">
            <dt className="text-gray-600">{row[0]}</dt>
            <dd className={cn("min-w-0 text-gray-900 [overflow-wrap:anywhere]", row[2] === "mono" && MONO)}>
              <FactValue value={row[1]} look={row[2]} />
            </dd>
          </div>
        ) : null,
      )}
    </dl>
  );
}
