/** Table constants (admin spec, section 9 "Shared kit constants") and the table's pure logic. */
export const ROW_HEIGHT = 49;
export const MAX_HEIGHT = 700;
export const EMPTY_HEIGHT = 120;
/** Rows rendered beyond each edge of the viewport, so fast scrolling does not show blank rows. */
export const OVERSCAN = 5;

export type ColumnType = "checkbox" | "expand" | "enum" | "ellipsis" | "input" | "edit-modal" | "custom" | "time";
export type SortOrder = "ascending" | "descending";
export interface SortState {
  key: string;
  order: SortOrder;
}

/** Ascending → descending → unsorted; another column starts again at ascending. */
export function nextSort(current: SortState | null, key: string): SortState | null {
  if (!current || current.key !== key) return { key, order: "ascending" };
  return current.order === "ascending" ? { key, order: "descending" } : null;
}

/** The spec's internal error: a table has at most one checkbox column and one expand column. */
export function validateColumns(columns: ReadonlyArray<{ type?: ColumnType }>): void {
  for (const type of ["checkbox", "expand"] as const) {
    if (columns.filter((c) => c.type === type).length > 1) {
      throw new Error(`Table: more than one ${type} column`);
    }
  }
}

/** Default comparison for local sorting: numbers by value, everything else as text; empty values last. */
export function compareValues(a: unknown, b: unknown): number {
  const empty = (v: unknown) => v === null || v === undefined || v === "";
  if (empty(a) || empty(b)) return empty(a) === empty(b) ? 0 : empty(a) ? 1 : -1;
  if (typeof a === "number" && typeof b === "number") return a - b;
  return String(a).localeCompare(String(b), undefined, { numeric: true });
}

/** A sorted copy (stable) for the given order; the input is left alone. */
export function sortRows<Row>(rows: readonly Row[], compare: (a: Row, b: Row) => number, order: SortOrder): Row[] {
  const sign = order === "ascending" ? 1 : -1;
  return rows
    .map((row, index) => ({ row, index }))
    .sort((x, y) => sign * compare(x.row, y.row) || x.index - y.index)
    .map((x) => x.row);
}

/** Header checkbox state from how many of the rows are selected. */
export function selectAllState(rowCount: number, selectedCount: number): { checked: boolean; indeterminate: boolean } {
  const checked = rowCount > 0 && selectedCount >= rowCount;
  return { checked, indeterminate: selectedCount > 0 && !checked };
}

export interface VirtualWindow {
  /** First rendered row (inclusive). */
  start: number;
  /** Last rendered row (exclusive). */
  end: number;
  /** Height of the rows above and below the rendered ones, kept as spacers. */
  padTop: number;
  padBottom: number;
  totalHeight: number;
}

/**
 * Which rows to render for a scroll position. Rows have a fixed height; `extras` maps a row index to
 * the height of something drawn under it (an expanded detail row), so scrolling stays right when
 * rows are expanded.
 */
export function virtualWindow({
  count,
  scrollTop,
  viewportHeight,
  rowHeight = ROW_HEIGHT,
  overscan = OVERSCAN,
  extras = new Map<number, number>(),
}: {
  count: number;
  scrollTop: number;
  viewportHeight: number;
  rowHeight?: number;
  overscan?: number;
  extras?: ReadonlyMap<number, number>;
}): VirtualWindow {
  if (count <= 0) return { start: 0, end: 0, padTop: 0, padBottom: 0, totalHeight: 0 };
  const sorted = [...extras].filter(([index, height]) => index >= 0 && index < count && height > 0).sort((a, b) => a[0] - b[0]);
  const totalHeight = count * rowHeight + sorted.reduce((sum, [, height]) => sum + height, 0);

  const topOf = (row: number) => {
    let top = row * rowHeight;
    for (const [index, height] of sorted) {
      if (index >= row) break;
      top += height;
    }
    return top;
  };
  // The row whose block (itself plus its detail) contains the offset `y`.
  const rowAt = (y: number) => {
    let above = 0;
    for (const [index, height] of sorted) {
      const top = index * rowHeight + above;
      if (y < top + rowHeight + height) return y >= top ? index : Math.floor((y - above) / rowHeight);
      above += height;
    }
    return Math.min(count - 1, Math.floor((y - above) / rowHeight));
  };

  const top = Math.min(Math.max(0, scrollTop), Math.max(0, totalHeight - viewportHeight));
  const start = Math.max(0, rowAt(top) - overscan);
  const end = Math.min(count, rowAt(top + viewportHeight) + 1 + overscan);
  const padTop = topOf(start);
  return { start, end, padTop, padBottom: totalHeight - topOf(end), totalHeight };
}
