import { useState, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import {
  BOUNDARY_PAGES,
  clampPage,
  DEFAULT_PAGE,
  DEFAULT_PAGE_SIZE,
  PAGE_SIZES,
  paginationItems,
  SIBLING_PAGES,
  totalPagesFor,
} from "./pagination-model";

export interface PaginationProps {
  /** Total number of items (not pages). */
  total: number;
  /** Controlled current page; leave out to let the bar keep its own (starting at `defaultPage`). */
  page?: number;
  defaultPage?: number;
  /** Controlled page size; leave out to let the bar keep its own (starting at `defaultPageSize`). */
  pageSize?: number;
  defaultPageSize?: number;
  /** Called with the new page and size; a size change already clamps the page to the new last page. */
  onChange?: (page: number, pageSize: number) => void;
  /**
   * Link mode, for pages that must work without JavaScript: pages become plain links and the size
   * selector a GET form, so the loader reads `?page=&size=` (see `readPaginationParams`).
   */
  hrefFor?: (page: number, pageSize: number) => string;
  /** Accessible name of the navigation landmark (default: "Pagination"). */
  label?: string;
  className?: string;
}

const itemClass =
  "inline-flex h-8 min-w-8 items-center justify-center rounded border border-gray-300 px-2 text-sm text-gray-700 " +
  "hover:border-primary hover:text-primary focus-visible:outline focus-visible:outline-2 focus-visible:outline-primary";
const currentClass = "border-primary bg-primary text-white hover:text-white";
const disabledClass = "cursor-not-allowed opacity-40 hover:border-gray-300 hover:text-gray-700";

function cx(...classes: Array<string | false | undefined>) {
  return classes.filter(Boolean).join(" ");
}

/** Pagination bar: total, previous/next, page numbers with ellipses and the page-size selector. */
export function Pagination({
  total,
  page: pageProp,
  defaultPage = DEFAULT_PAGE,
  pageSize: pageSizeProp,
  defaultPageSize = DEFAULT_PAGE_SIZE,
  onChange,
  hrefFor,
  label,
  className,
}: PaginationProps) {
  const { t } = useTranslation();
  const [ownPage, setOwnPage] = useState(defaultPage);
  const [ownPageSize, setOwnPageSize] = useState(defaultPageSize);
  const pageSize = pageSizeProp ?? ownPageSize;
  const totalPages = totalPagesFor(total, pageSize);
  const page = clampPage(pageProp ?? ownPage, totalPages);

  const change = (nextPage: number, nextSize: number) => {
    const clamped = clampPage(nextPage, totalPagesFor(total, nextSize));
    setOwnPage(clamped);
    setOwnPageSize(nextSize);
    onChange?.(clamped, nextSize);
  };

  // One control for previous, next and each page: a link in link mode, otherwise a button.
  const control = (target: number, name: string, content: ReactNode, { disabled = false, current = false } = {}) => {
    const className = cx(itemClass, current && currentClass, disabled && disabledClass);
    const common = { "aria-label": name, "aria-current": current ? ("page" as const) : undefined, className };
    if (hrefFor) {
      // A link cannot be disabled; without an href it is inert and says so.
      return disabled ? (
        <a role="link" aria-disabled="true" {...common}>
          {content}
        </a>
      ) : (
        <a href={hrefFor(target, pageSize)} {...common}>
          {content}
        </a>
      );
    }
    return (
      <button type="button" disabled={disabled} onClick={() => change(target, pageSize)} {...common}>
        {content}
      </button>
    );
  };

  const sizeOptions = PAGE_SIZES.map((size) => (
    <option key={size} value={size}>
      {t("global.pagination.page", { size })}
    </option>
  ));
  const selectClass = "h-8 rounded border border-gray-300 bg-white px-2 text-sm focus:border-primary focus:outline-none";

  return (
    <nav aria-label={label ?? t("global.pagination.label")} className={cx("flex flex-wrap items-center gap-2 text-sm", className)}>
      <span className="text-gray-600">{t("global.pagination.total", { count: total })}</span>
      <ul className="flex items-center gap-1">
        <li>{control(page - 1, t("global.pagination.previous"), "‹", { disabled: page <= 1 })}</li>
        {paginationItems(page, totalPages, { boundaries: BOUNDARY_PAGES, siblings: SIBLING_PAGES }).map((item) =>
          typeof item === "number" ? (
            <li key={item}>{control(item, t("global.pagination.goto", { page: item }), item, { current: item === page })}</li>
          ) : (
            <li key={item} aria-hidden="true" className="px-1 text-gray-400">
              …
            </li>
          ),
        )}
        <li>{control(page + 1, t("global.pagination.next"), "›", { disabled: page >= totalPages })}</li>
      </ul>
      {hrefFor ? (
        <SizeForm href={hrefFor(page, pageSize)} pageSize={pageSize} selectClass={selectClass} options={sizeOptions} onSize={onChange ? (size) => change(page, size) : undefined} />
      ) : (
        <select
          aria-label={t("global.pagination.size")}
          className={selectClass}
          value={pageSize}
          onChange={(event) => change(page, Number(event.target.value))}
        >
          {sizeOptions}
        </select>
      )}
    </nav>
  );
}

/**
 * The size selector without JavaScript: a GET form to the current page's address that keeps its
 * other query parameters (filters, the current page) and replaces `size`; the loader clamps the page.
 */
function SizeForm({
  href,
  pageSize,
  selectClass,
  options,
  onSize,
}: {
  href: string;
  pageSize: number;
  selectClass: string;
  options: ReactNode;
  /** With JavaScript and an onChange: a new size applies at once, without the Apply button. */
  onSize?: (size: number) => void;
}) {
  const { t } = useTranslation();
  const url = new URL(href, "http://relative.invalid");
  const kept = [...url.searchParams].filter(([name]) => name !== "size");
  // "?page=2" submits to the current address; a path or full URL keeps its address.
  const action = href.split(/[?#]/)[0] || undefined;
  return (
    <form method="get" action={action} className="flex items-center gap-1">
      {kept.map(([name, value], index) => (
        <input key={`${name}-${index}`} type="hidden" name={name} value={value} />
      ))}
      <select name="size" aria-label={t("global.pagination.size")} className={selectClass} defaultValue={pageSize} onChange={onSize ? (event) => onSize(Number(event.target.value)) : undefined}>
        {options}
      </select>
      <button type="submit" className={itemClass}>
        {t("global.pagination.apply")}
      </button>
    </form>
  );
}
