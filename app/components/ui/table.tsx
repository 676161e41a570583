import { Fragment, useEffect, useId, useLayoutEffect, useMemo, useRef, useState, type CSSProperties, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import {
  compareValues,
  EMPTY_HEIGHT,
  MAX_HEIGHT,
  nextSort,
  ROW_HEIGHT,
  selectAllState,
  sortRows,
  validateColumns,
  virtualWindow,
  type SortState,
} from "./table-model";

export type { ColumnType, SortOrder, SortState } from "./table-model";
export type RowKey = string | number;

export interface RowButton<Row> {
  label: string | ((row: Row) => string);
  onClick: (row: Row) => void;
  /** Leave the button out for rows where it does not apply. */
  hidden?: (row: Row) => boolean;
  danger?: boolean;
}

interface ColumnBase<Row> {
  /** Identifies the column (sorting, React keys); defaults to dataIndex, then the type. */
  key?: string;
  title?: string;
  width?: number | string;
  /** Leaves the column out when true (e.g. a permission the viewer lacks). */
  hidden?: boolean | (() => boolean);
  /**
   * Shows the column only from this screen width up (Tailwind's sm 640 px, md 768 px; wide 1400 px,
   * the full desktop width): a phone, or a 1280 px laptop, keeps room for the columns that matter.
   */
  minScreen?: "sm" | "md" | "wide";
  /** Buttons drawn in the cell of every row, after the cell's content. */
  buttons?: ReadonlyArray<RowButton<Row>>;
  /**
   * One line per cell: what does not fit ends in an ellipsis (the whole text in its tooltip when
   * the cell renders a string) instead of wrapping the row to two lines (an account, an address).
   */
  nowrap?: boolean;
}

interface DataColumn<Row> extends ColumnBase<Row> {
  dataIndex?: keyof Row & string;
  /** Sortable header; a function sorts with it when the table sorts locally. */
  sort?: boolean | ((a: Row, b: Row) => number);
}

export type Column<Row> =
  | (ColumnBase<Row> & { type: "checkbox" })
  | (ColumnBase<Row> & { type: "expand" })
  | (DataColumn<Row> & { type?: undefined })
  | (DataColumn<Row> & { type: "enum"; enum: Readonly<Record<string, ReactNode>> })
  | (DataColumn<Row> & { type: "ellipsis" })
  | (DataColumn<Row> & { type: "input"; onChange: (row: Row, value: string) => void; placeholder?: string })
  | (DataColumn<Row> & { type: "edit-modal"; onEdit: (row: Row) => void })
  | (DataColumn<Row> & { type: "custom"; render?: (row: Row, index: number) => ReactNode })
  /**
   * A date and time: one line, in a column the kit makes wide enough for a full date and time in
   * either language (`width` is then a minimum), so it never wraps at the console's widths.
   */
  | (DataColumn<Row> & { type: "time"; render: (row: Row, index: number) => ReactNode });

export interface TableProps<Row> {
  columns: ReadonlyArray<Column<Row>>;
  data: readonly Row[];
  rowKey: (keyof Row & string) | ((row: Row) => RowKey);
  /** Accessible name of the table and its scroll region. */
  label: string;
  /** Names a row in control labels ("Select row alice"); defaults to the row key. */
  rowLabel?: (row: Row) => string;
  /**
   * The ticked rows. Only rows of `data` can be ticked: when a row leaves `data` (another page, a
   * search, a reload after an action) its key leaves the selection and onSelectionChange reports
   * it, so a bulk action never reaches a row that is not shown ticked.
   */
  selectedKeys?: readonly RowKey[];
  defaultSelectedKeys?: readonly RowKey[];
  onSelectionChange?: (keys: RowKey[], rows: Row[]) => void;
  /**
   * A double click on a row (not on one of its controls) opens it. Ticking is the checkbox's job:
   * a click on a row never changes the selection.
   */
  onRowDoubleClick?: (row: Row) => void;
  /**
   * Plain-HTML selection: each row's box is sent as `name=<row key>` with the form whose id is
   * `form` while it is ticked, so a bulk action works before (or without) JavaScript too.
   */
  selectionField?: { name: string; form: string };
  expandedKeys?: readonly RowKey[];
  defaultExpandedKeys?: readonly RowKey[];
  onExpandedChange?: (keys: RowKey[]) => void;
  expandedRender?: (row: Row) => ReactNode;
  sort?: SortState | null;
  defaultSort?: SortState | null;
  /** Called on every header click; the page usually reloads data in the new order. */
  onSortChange?: (sort: SortState | null) => void;
  /**
   * Link mode: sortable headers are links to the URL of the next order, so sorting works as plain
   * HTML before (or without) JavaScript; with JavaScript a click still goes to onSortChange.
   */
  sortHref?: (sort: SortState | null) => string;
  /** Sort `data` in the table instead (small, fully loaded lists). */
  sortLocally?: boolean;
  className?: string;
}

// Layout effects warn during server rendering; the measurement only matters in the browser.
const useIsomorphicLayoutEffect = typeof document === "undefined" ? useEffect : useLayoutEffect;

/** A value that is controlled when `value` is given and kept inside otherwise. */
function useControllable<T>(value: T | undefined, initial: T): [T, (next: T) => void] {
  const [own, setOwn] = useState(initial);
  return [value ?? own, setOwn];
}

const columnKey = <Row,>(column: Column<Row>, index: number) =>
  column.key ?? ("dataIndex" in column && column.dataIndex ? column.dataIndex : `${column.type ?? "column"}-${index}`);
const SCREEN_CLASS = { sm: "hidden sm:table-cell", md: "hidden md:table-cell", wide: "hidden min-[1400px]:table-cell" } as const;
const screenClass = <Row,>(column: Column<Row>) => (column.minScreen ? ` ${SCREEN_CLASS[column.minScreen]}` : "");
const isHidden = <Row,>(column: Column<Row>) => (typeof column.hidden === "function" ? column.hidden() : column.hidden === true);
const text = (value: unknown) => (value === null || value === undefined ? "" : String(value));

/** Room for "26/11/2026, 23:18:21" or "2026-11-26 23:18:21" on one line (1ch is a digit's width; the separators are narrower). */
const TIME_WIDTH = "calc(17.5ch + 1.5rem)";
/** The CSS width of a column: the page's width, and for a time column never less than a full date and time. */
export function columnWidth<Row>(column: Column<Row>): string | undefined {
  const given = typeof column.width === "number" ? `${column.width}px` : column.width;
  if (column.type !== "time") return given;
  return given === undefined ? TIME_WIDTH : `max(${given}, ${TIME_WIDTH})`;
}

const checkboxClass = "h-4 w-4 cursor-pointer rounded border-gray-300 accent-primary";
const sortControlClass = "inline-flex items-center gap-1 hover:text-primary focus-visible:outline focus-visible:outline-2 focus-visible:outline-primary";

function SortMark({ order }: { order: SortState["order"] | undefined }) {
  return (
    <span aria-hidden="true" className={order ? "text-primary" : "text-gray-400"}>
      {order === "ascending" ? "▲" : order === "descending" ? "▼" : "↕"}
    </span>
  );
}
const smallButtonBase = "inline-flex h-6 items-center rounded px-2 text-sm focus-visible:outline focus-visible:outline-2 focus-visible:outline-primary";
// Hover darkens the text as it tints the background, so the text never loses contrast.
const smallButtonClass = `${smallButtonBase} text-primary hover:bg-primary/10 hover:text-primary-dark`;
const smallDangerClass = `${smallButtonBase} text-red-600 hover:bg-red-50 hover:text-red-700`;

/**
 * Data table: a real <table> with sortable headers, row selection, expandable rows and virtual
 * rows (fixed 49 px rows in a body scrolling within 700 px; only the visible rows are rendered).
 */
export function Table<Row>({
  columns,
  data,
  rowKey,
  label,
  rowLabel,
  selectedKeys,
  defaultSelectedKeys = [],
  onSelectionChange,
  onRowDoubleClick,
  selectionField,
  expandedKeys,
  defaultExpandedKeys = [],
  onExpandedChange,
  expandedRender,
  sort: sortProp,
  defaultSort = null,
  onSortChange,
  sortHref,
  sortLocally = false,
  className,
}: TableProps<Row>) {
  validateColumns(columns);
  const { t } = useTranslation();
  const id = useId();
  const [selected, setSelected] = useControllable(selectedKeys, defaultSelectedKeys);
  const [expanded, setExpanded] = useControllable(expandedKeys, defaultExpandedKeys);
  const [ownSort, setOwnSort] = useState(defaultSort);
  const sort = sortProp === undefined ? ownSort : sortProp;
  const [scrollTop, setScrollTop] = useState(0);
  const [detailHeights, setDetailHeights] = useState<ReadonlyMap<RowKey, number>>(new Map());
  const detailRefs = useRef(new Map<RowKey, HTMLTableRowElement>());

  const keyOf = (row: Row): RowKey => (typeof rowKey === "function" ? rowKey(row) : (row[rowKey] as RowKey));
  const nameOf = (row: Row) => (rowLabel ? rowLabel(row) : String(keyOf(row)));
  const visibleColumns = columns.filter((column) => !isHidden(column));
  // A row of one cell (the expanded detail, "No data") must not span more columns than the screen
  // shows: a colSpan past the header's cells makes phantom columns that take the width. It spans the
  // columns every screen shows, and an empty cell per column a narrow screen hides takes that
  // column's place where it shows.
  const alwaysShown = Math.max(1, visibleColumns.filter((column) => !column.minScreen).length);
  const spanFillers = (className: string) =>
    visibleColumns
      .filter((column) => column.minScreen)
      .map((column, c) => <td key={`filler-${columnKey(column, c)}`} aria-hidden="true" className={`${className}${screenClass(column)}`} />);

  const rows = useMemo(() => {
    if (!sortLocally || !sort) return data;
    const column = columns.find((c, i) => columnKey(c, i) === sort.key);
    if (!column || !("sort" in column) || !column.sort) return data;
    const { sort: by, dataIndex } = column;
    const compare = typeof by === "function" ? by : (a: Row, b: Row) => (dataIndex ? compareValues(a[dataIndex], b[dataIndex]) : 0);
    return sortRows(data, compare, sort.order);
  }, [columns, data, sort, sortLocally]);

  const selectedSet = new Set(selected);
  const expandedSet = new Set(expanded);
  const rowIndexByKey = new Map(rows.map((row, index) => [keyOf(row), index]));
  const extras = new Map<number, number>();
  for (const key of expanded) {
    const index = rowIndexByKey.get(key);
    // Until a detail row is measured, assume it is one row tall.
    if (index !== undefined) extras.set(index, detailHeights.get(key) ?? ROW_HEIGHT);
  }
  const view = virtualWindow({ count: rows.length, scrollTop, viewportHeight: MAX_HEIGHT, extras });

  // Measure the rendered detail rows so the spacers stay right once they scroll out.
  useIsomorphicLayoutEffect(() => {
    let changed = false;
    const next = new Map(detailHeights);
    for (const [key, element] of detailRefs.current) {
      const height = element.getBoundingClientRect().height;
      if (element.isConnected && next.get(key) !== height) {
        next.set(key, height);
        changed = true;
      }
    }
    if (changed) setDetailHeights(next);
  });

  const changeSelection = (keys: RowKey[]) => {
    setSelected(keys);
    const set = new Set(keys);
    onSelectionChange?.(keys, data.filter((row) => set.has(keyOf(row))));
  };
  const allKeys = rows.map(keyOf);
  const present = new Set(allKeys);
  // Keys of rows no longer in `data` leave the selection (see selectedKeys).
  const stale = selected.some((key) => !present.has(key));
  const pruneSelection = useRef<() => void>(() => {});
  pruneSelection.current = () => changeSelection(selected.filter((key) => present.has(key)));
  useEffect(() => {
    if (stale) pruneSelection.current();
  }, [stale, data]);
  const shown = stale ? selected.filter((key) => present.has(key)) : selected;
  const toggleRow = (key: RowKey) => changeSelection(selectedSet.has(key) ? shown.filter((k) => k !== key) : [...shown, key]);
  const selectedHere = allKeys.filter((key) => selectedSet.has(key)).length;
  const headerState = selectAllState(allKeys.length, selectedHere);
  const toggleAll = () => changeSelection(headerState.checked ? [] : allKeys);
  const toggleExpanded = (key: RowKey) => {
    const next = expandedSet.has(key) ? expanded.filter((k) => k !== key) : [...expanded, key];
    setExpanded(next);
    onExpandedChange?.(next);
  };
  const changeSort = (key: string) => {
    const next = nextSort(sort, key);
    setOwnSort(next);
    onSortChange?.(next);
  };

  const renderCell = (column: Column<Row>, row: Row, index: number): ReactNode => {
    const key = keyOf(row);
    const name = nameOf(row);
    const value = "dataIndex" in column && column.dataIndex ? row[column.dataIndex] : undefined;
    switch (column.type) {
      case "checkbox":
        return (
          <input
            type="checkbox"
            className={checkboxClass}
            aria-label={`${t("global.table.select-row")} ${name}`}
            name={selectionField?.name}
            value={selectionField ? String(key) : undefined}
            form={selectionField?.form}
            checked={selectedSet.has(key)}
            onChange={() => toggleRow(key)}
          />
        );
      case "expand": {
        const open = expandedSet.has(key);
        return (
          <button
            type="button"
            className={smallButtonClass}
            aria-expanded={open}
            aria-controls={open ? `${id}-detail-${key}` : undefined}
            aria-label={`${t(open ? "global.table.collapse-row" : "global.table.expand-row")} ${name}`}
            onClick={() => toggleExpanded(key)}
          >
            <span aria-hidden="true" className={open ? "inline-block rotate-90" : "inline-block"}>
              ›
            </span>
          </button>
        );
      }
      case "enum":
        return column.enum[text(value)] ?? text(value);
      case "ellipsis":
        return (
          <span className="block truncate" title={text(value)}>
            {text(value)}
          </span>
        );
      case "input":
        return (
          <input
            type="text"
            className="h-8 w-full rounded border border-gray-300 px-2 text-sm focus:border-primary focus:outline-none"
            aria-label={`${column.title ?? ""} ${name}`.trim()}
            placeholder={column.placeholder}
            value={text(value)}
            onChange={(event) => column.onChange(row, event.target.value)}
          />
        );
      case "edit-modal":
        return (
          <span className="inline-flex items-center gap-2">
            <span>{text(value)}</span>
            <button
              type="button"
              className={smallButtonClass}
              aria-label={`${t("global.table.edit")} ${column.title ?? ""} ${name}`.replace(/\s+/g, " ").trim()}
              onClick={() => column.onEdit(row)}
            >
              {t("global.table.edit")}
            </button>
          </span>
        );
      case "custom":
        return column.render?.(row, index) ?? null;
      case "time":
        return column.render(row, index);
      default:
        return text(value);
    }
  };

  const renderButtons = (column: Column<Row>, row: Row) => {
    const buttons = (column.buttons ?? []).filter((button) => !button.hidden?.(row));
    if (buttons.length === 0) return null;
    return (
      <span className="inline-flex flex-wrap items-center gap-1">
        {buttons.map((button, i) => {
          const buttonLabel = typeof button.label === "function" ? button.label(row) : button.label;
          return (
            <button
              key={`${buttonLabel}-${i}`}
              type="button"
              className={button.danger ? smallDangerClass : smallButtonClass}
              onClick={() => button.onClick(row)}
            >
              {buttonLabel}
            </button>
          );
        })}
      </span>
    );
  };

  const renderHeader = (column: Column<Row>, index: number) => {
    const key = columnKey(column, index);
    const style: CSSProperties = { width: columnWidth(column) };
    const headerClass = `sticky top-0 z-[1] border-b border-gray-200 bg-gray-50 px-3 text-left text-sm font-medium text-gray-700${screenClass(column)}`;
    if (column.type === "checkbox") {
      return (
        <th key={key} scope="col" style={style} className={headerClass}>
          <HeaderCheckbox
            label={t("global.table.select-all")}
            checked={headerState.checked}
            indeterminate={headerState.indeterminate}
            disabled={rows.length === 0}
            onChange={toggleAll}
          />
        </th>
      );
    }
    const sortable = "sort" in column && Boolean(column.sort);
    const order = sort?.key === key ? sort.order : undefined;
    return (
      <th key={key} scope="col" style={style} className={headerClass} aria-sort={sortable ? (order ?? "none") : undefined}>
        {sortable && sortHref ? (
          <a
            href={sortHref(nextSort(sort, key))}
            className={sortControlClass}
            aria-label={t("global.table.sort", { column: column.title ?? key })}
            onClick={(event) => {
              if (!onSortChange || event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
              event.preventDefault();
              changeSort(key);
            }}
          >
            {column.title}
            <SortMark order={order} />
          </a>
        ) : sortable ? (
          <button type="button" className={sortControlClass} aria-label={t("global.table.sort", { column: column.title ?? key })} onClick={() => changeSort(key)}>
            {column.title}
            <SortMark order={order} />
          </button>
        ) : column.type === "expand" && !column.title ? (
          <span className="sr-only">{t("global.table.expand-row")}</span>
        ) : (
          column.title
        )}
      </th>
    );
  };

  const bodyRows: ReactNode[] = [];
  for (let index = view.start; index < view.end; index++) {
    const row = rows[index] as Row;
    const key = keyOf(row);
    const isSelected = selectedSet.has(key);
    bodyRows.push(
      <Fragment key={key}>
        <tr
          aria-rowindex={index + 2}
          style={{ height: ROW_HEIGHT }}
          className={isSelected ? "bg-primary/5" : "hover:bg-gray-50"}
          onDoubleClick={
            onRowDoubleClick
              ? (event) => {
                  // A double click on a control (the box, a link, a menu) is that control's.
                  if ((event.target as Element).closest("a, button, input, select, textarea, [role=menu]")) return;
                  onRowDoubleClick(row);
                }
              : undefined
          }
        >
          {visibleColumns.map((column, c) => {
            const content = renderCell(column, row, index);
            const oneLine = column.type === "time" || column.nowrap;
            return (
              <td
                key={columnKey(column, c)}
                className={`border-b border-gray-100 px-3 text-sm text-gray-800${screenClass(column)}${column.type === "time" ? " whitespace-nowrap tabular-nums" : ""}`}
                style={{ width: columnWidth(column) }}
              >
                <span className="flex items-center gap-2">
                  {column.type === "ellipsis" ? (
                    <span className="min-w-0 flex-1">{content}</span>
                  ) : oneLine ? (
                    <span className="min-w-0 flex-1 truncate" title={typeof content === "string" ? content : undefined}>
                      {content}
                    </span>
                  ) : (
                    content
                  )}
                  {renderButtons(column, row)}
                </span>
              </td>
            );
          })}
        </tr>
        {expandedSet.has(key) && expandedRender ? (
          <tr
            id={`${id}-detail-${key}`}
            ref={(element) => {
              if (element) detailRefs.current.set(key, element);
              else detailRefs.current.delete(key);
            }}
          >
            <td colSpan={alwaysShown} className="border-b border-gray-100 bg-gray-50 px-3 py-2 text-sm">
              {expandedRender(row)}
            </td>
            {spanFillers("border-b border-gray-100 bg-gray-50")}
          </tr>
        ) : null}
      </Fragment>,
    );
  }

  const empty = rows.length === 0;
  return (
    <div
      role="region"
      aria-label={label}
      tabIndex={0}
      className={`overflow-auto rounded border border-gray-200 focus-visible:outline focus-visible:outline-2 focus-visible:outline-primary ${className ?? ""}`}
      style={empty ? { height: EMPTY_HEIGHT } : { maxHeight: MAX_HEIGHT }}
      onScroll={(event) => setScrollTop(event.currentTarget.scrollTop)}
    >
      <table className="w-full table-fixed border-collapse" aria-rowcount={rows.length + 1}>
        <caption className="sr-only">{label}</caption>
        <thead>
          <tr aria-rowindex={1} style={{ height: ROW_HEIGHT }}>
            {visibleColumns.map(renderHeader)}
          </tr>
        </thead>
        <tbody>
          {empty ? (
            <tr>
              <td colSpan={alwaysShown} className="px-3 py-6 text-center text-sm text-gray-600">
                {t("global.no-data")}
              </td>
              {spanFillers("")}
            </tr>
          ) : (
            <>
              {view.padTop > 0 ? <tr aria-hidden="true" style={{ height: view.padTop }} /> : null}
              {bodyRows}
              {view.padBottom > 0 ? <tr aria-hidden="true" style={{ height: view.padBottom }} /> : null}
            </>
          )}
        </tbody>
      </table>
    </div>
  );
}

/** The header's select-all box; `indeterminate` exists only as a DOM property. */
function HeaderCheckbox({
  label,
  checked,
  indeterminate,
  disabled,
  onChange,
}: {
  label: string;
  checked: boolean;
  indeterminate: boolean;
  disabled: boolean;
  onChange: () => void;
}) {
  const ref = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (ref.current) ref.current.indeterminate = indeterminate;
  }, [indeterminate]);
  return <input ref={ref} type="checkbox" className={checkboxClass} aria-label={label} checked={checked} disabled={disabled} onChange={onChange} />;
}
