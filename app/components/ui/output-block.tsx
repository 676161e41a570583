import { useId } from "react";
import { cn } from "./cn";

/**
 * A program's captured output (an event's run): its label, then the text as it was, in a monospaced
 * block that keeps line breaks and scrolls past a few lines. The block can take focus, so it can be
 * scrolled from the keyboard; an empty output shows `emptyText`.
 */
export function OutputBlock({ label, text, emptyText, className }: { label: string; text: string; emptyText: string; className?: string }) {
  const id = useId();
  return (
    <figure className={cn("flex flex-col gap-1", className)}>
      <figcaption id={id} className="text-sm font-medium text-gray-800">
        {label}
      </figcaption>
      {/* Focusable: a scrollable region must be reachable from the keyboard. */}
      <pre aria-labelledby={id} tabIndex={0} className="max-h-48 overflow-auto whitespace-pre-wrap break-all rounded border border-gray-200 bg-gray-50 p-2 font-mono text-xs leading-5 text-gray-900">
        {text === "" ? <span className="text-gray-500">{emptyText}</span> : text}
      </pre>
    </figure>
  );
}
