import type { ReactNode } from "react";

export interface Crumb {
  key: string;
  label: ReactNode;
  /** A link (works without JavaScript); otherwise `onSelect` makes it a button. */
  href?: string;
  onSelect?: () => void;
}

const separator = (
  <span aria-hidden="true" className="text-gray-400">
    /
  </span>
);

/** A path of folders: every part but the last leads there; the last is the current page. `lead` goes first (e.g. a group's name). */
export function Breadcrumb({ label, crumbs, lead }: { label: string; crumbs: readonly Crumb[]; lead?: ReactNode }) {
  return (
    <nav aria-label={label}>
      <ol className="flex flex-wrap items-center gap-1 text-sm">
        {lead && (
          <li className="flex items-center gap-1">
            {lead}
            {separator}
          </li>
        )}
        {crumbs.map((crumb, index) => {
          const last = index === crumbs.length - 1;
          return (
            <li key={crumb.key} className="flex items-center gap-1">
              {last ? (
                <span aria-current="page" className="font-medium text-gray-900">
                  {crumb.label}
                </span>
              ) : crumb.href !== undefined ? (
                <a href={crumb.href} className="text-primary hover:underline">
                  {crumb.label}
                </a>
              ) : (
                <button type="button" className="text-primary hover:underline" onClick={crumb.onSelect}>
                  {crumb.label}
                </button>
              )}
              {!last && separator}
            </li>
          );
        })}
      </ol>
    </nav>
  );
}
