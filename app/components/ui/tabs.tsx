import { Fragment, useId, type AnchorHTMLAttributes, type ReactNode } from "react";
import { cn } from "./cn";

export type TabItem<K extends string> = { key: K; label: ReactNode };
export type TabLinkProps = AnchorHTMLAttributes<HTMLAnchorElement> & { href: string };

/**
 * Tabs whose tabs are links (`hrefFor(key)`, e.g. `?tab=…`), so switching works as plain HTML before
 * (or without) JavaScript; the page renders the selected panel as `children`. Pass `link` to render
 * the tabs with the router's link (Remix's <Link to>) instead of a plain <a>.
 */
export function Tabs<K extends string>({
  label,
  items,
  selected,
  hrefFor,
  link = (props) => <a {...props} />,
  children,
  className,
}: {
  /** The tab list's accessible name. */
  label: string;
  items: readonly TabItem<K>[];
  selected: K;
  hrefFor: (key: K) => string;
  link?: (props: TabLinkProps) => ReactNode;
  children: ReactNode;
  className?: string;
}) {
  const id = useId();
  const tabId = (key: K) => `${id}-tab-${key}`;
  return (
    <div className={cn("flex flex-col gap-4", className)}>
      <div role="tablist" aria-label={label} className="flex gap-6 border-b border-gray-200">
        {items.map((item) => {
          const active = item.key === selected;
          return (
            <Fragment key={item.key}>
              {link({
                href: hrefFor(item.key),
                id: tabId(item.key),
                role: "tab",
                "aria-selected": active,
                "aria-controls": active ? `${id}-panel` : undefined,
                className: cn(
                  "-mb-px border-b-2 px-1 pb-2 text-sm focus-visible:outline focus-visible:outline-2 focus-visible:outline-primary",
                  active ? "border-primary font-medium text-primary" : "border-transparent text-gray-600 hover:text-gray-900",
                ),
                children: item.label,
              })}
            </Fragment>
          );
        })}
      </div>
      <div role="tabpanel" id={`${id}-panel`} aria-labelledby={tabId(selected)}>
        {children}
      </div>
    </div>
  );
}
