import { fireEvent, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { I18nextProvider } from "react-i18next";
import { describe, expect, it, vi } from "vitest";
import { renderWithI18n } from "../../test-utils";
import { Table, type Column, type SortState } from "./table";

interface User {
  id: string;
  name: string;
  size: number;
  status: "on" | "off";
  note: string;
}

const users: User[] = [
  { id: "u1", name: "carol", size: 30, status: "on", note: "" },
  { id: "u2", name: "alice", size: 10, status: "off", note: "" },
  { id: "u3", name: "bob", size: 20, status: "on", note: "" },
];

const many = (count: number): User[] =>
  Array.from({ length: count }, (_, i) => ({ id: `row-${i}`, name: `name ${i}`, size: i, status: "on", note: "" }));

const bodyRowNames = () =>
  screen
    .getAllByRole("row")
    .slice(1)
    .map((row) => within(row).getAllByRole("cell")[0]?.textContent);

describe("Table columns", () => {
  it("throws on more than one checkbox column or more than one expand column", () => {
    const quiet = vi.spyOn(console, "error").mockImplementation(() => {});
    const twoCheckboxes: Column<User>[] = [{ type: "checkbox" }, { type: "checkbox" }, { dataIndex: "name" }];
    expect(() => renderWithI18n(<Table label="Users" rowKey="id" data={users} columns={twoCheckboxes} />)).toThrow(
      "more than one checkbox column",
    );
    const twoExpands: Column<User>[] = [{ type: "expand" }, { type: "expand" }];
    expect(() => renderWithI18n(<Table label="Users" rowKey="id" data={users} columns={twoExpands} />)).toThrow(
      "more than one expand column",
    );
    quiet.mockRestore();
  });

  it("is a real, named table with column headers", () => {
    renderWithI18n(
      <Table label="Users" rowKey="id" data={users} columns={[{ dataIndex: "name", title: "Name", width: 200 }, { dataIndex: "size", title: "Size" }]} />,
    );
    const table = screen.getByRole("table", { name: "Users" });
    const headers = within(table).getAllByRole("columnheader");
    expect(headers.map((h) => [h.textContent, h.getAttribute("scope")])).toEqual([
      ["Name", "col"],
      ["Size", "col"],
    ]);
    expect(headers[0]?.style.width).toBe("200px");
    expect(bodyRowNames()).toEqual(["carol", "alice", "bob"]);
  });

  it("leaves out hidden columns", () => {
    renderWithI18n(
      <Table
        label="Users"
        rowKey="id"
        data={users}
        columns={[
          { dataIndex: "name", title: "Name" },
          { dataIndex: "size", title: "Size", hidden: true },
          { dataIndex: "status", title: "Status", hidden: () => true },
          { dataIndex: "note", title: "Note", hidden: () => false },
        ]}
      />,
    );
    expect(screen.getAllByRole("columnheader").map((h) => h.textContent)).toEqual(["Name", "Note"]);
    expect(within(screen.getAllByRole("row")[1] as HTMLElement).getAllByRole("cell")).toHaveLength(2);
  });

  it("renders enum labels, ellipsis with a full-text title, inline inputs, edit buttons, custom cells and row buttons", async () => {
    const user = userEvent.setup();
    const onChange = vi.fn();
    const onEdit = vi.fn();
    const onDelete = vi.fn();
    const long = "a very long remark that the cell truncates";
    renderWithI18n(
      <Table
        label="Users"
        rowKey="id"
        rowLabel={(row) => row.name}
        data={[{ id: "u1", name: "carol", size: 30, status: "on", note: long }, { id: "u2", name: "alice", size: 10, status: "off", note: "" }]}
        columns={[
          { dataIndex: "status", title: "Status", type: "enum", enum: { on: "Online", off: "Offline" } },
          { dataIndex: "note", title: "Remark", type: "ellipsis" },
          { dataIndex: "name", title: "Alias", type: "input", onChange },
          { dataIndex: "size", title: "Quota", type: "edit-modal", onEdit },
          { title: "Size", type: "custom", render: (row) => <strong>{row.size} MB</strong> },
          {
            title: "Actions",
            type: "custom",
            buttons: [{ label: "Delete", onClick: onDelete, hidden: (row) => row.name === "alice" }],
          },
        ]}
      />,
    );
    const [carol, alice] = screen.getAllByRole("row").slice(1) as [HTMLElement, HTMLElement];
    expect(within(carol).getByText("Online")).toBeTruthy();
    expect(within(alice).getByText("Offline")).toBeTruthy();
    expect(within(carol).getByText(long).getAttribute("title")).toBe(long);

    await user.type(screen.getByRole("textbox", { name: "Alias alice" }), "!");
    expect(onChange).toHaveBeenCalledWith(expect.objectContaining({ id: "u2" }), "alice!");

    expect(within(carol).getByText("30", { exact: true })).toBeTruthy();
    await user.click(screen.getByRole("button", { name: "Edit Quota carol" }));
    expect(onEdit).toHaveBeenCalledWith(expect.objectContaining({ id: "u1" }));

    expect(within(carol).getByText("30 MB")).toBeTruthy();
    await user.click(within(carol).getByRole("button", { name: "Delete" }));
    expect(onDelete).toHaveBeenCalledWith(expect.objectContaining({ id: "u1" }));
    expect(within(alice).queryByRole("button", { name: "Delete" })).toBeNull();
  });
});

describe("Table sorting", () => {
  const columns: Column<User>[] = [
    { dataIndex: "name", title: "Name", sort: true },
    { dataIndex: "size", title: "Size", sort: (a, b) => a.size - b.size },
    { dataIndex: "status", title: "Status" },
  ];

  it("cycles ascending → descending → unsorted, reports it and leaves the data order alone", async () => {
    const user = userEvent.setup();
    const onSortChange = vi.fn();
    renderWithI18n(<Table label="Users" rowKey="id" data={users} columns={columns} onSortChange={onSortChange} />);
    const button = screen.getByRole("button", { name: "Sort by Name" });
    const header = button.closest("th") as HTMLElement;
    expect(header.getAttribute("aria-sort")).toBe("none");
    expect(screen.getByText("Status").closest("th")?.hasAttribute("aria-sort")).toBe(false);

    await user.click(button);
    expect(header.getAttribute("aria-sort")).toBe("ascending");
    expect(onSortChange).toHaveBeenLastCalledWith({ key: "name", order: "ascending" });
    await user.click(button);
    expect(header.getAttribute("aria-sort")).toBe("descending");
    expect(onSortChange).toHaveBeenLastCalledWith({ key: "name", order: "descending" });
    await user.click(button);
    expect(header.getAttribute("aria-sort")).toBe("none");
    expect(onSortChange).toHaveBeenLastCalledWith(null);
    expect(bodyRowNames()).toEqual(["carol", "alice", "bob"]);
  });

  it("in link mode, a header links to the next order (plain HTML) and a click still reports it", async () => {
    const user = userEvent.setup();
    const onSortChange = vi.fn();
    const sortHref = (next: SortState | null) => (next ? `/list?sort=${next.key}&order=${next.order}` : "/list");
    renderWithI18n(<Table label="Users" rowKey="id" data={users} columns={columns} sort={{ key: "name", order: "ascending" }} sortHref={sortHref} onSortChange={onSortChange} />);
    const name = screen.getByRole("link", { name: "Sort by Name" });
    expect(name.getAttribute("href")).toBe("/list?sort=name&order=descending");
    expect(screen.getByRole("link", { name: "Sort by Size" }).getAttribute("href")).toBe("/list?sort=size&order=ascending");
    expect(name.closest("th")?.getAttribute("aria-sort")).toBe("ascending");
    await user.click(name);
    expect(onSortChange).toHaveBeenLastCalledWith({ key: "name", order: "descending" });
  });

  it("starts another column at ascending", async () => {
    const user = userEvent.setup();
    renderWithI18n(<Table label="Users" rowKey="id" data={users} columns={columns} />);
    await user.click(screen.getByRole("button", { name: "Sort by Name" }));
    await user.click(screen.getByRole("button", { name: "Sort by Size" }));
    expect(screen.getByRole("button", { name: "Sort by Size" }).closest("th")?.getAttribute("aria-sort")).toBe("ascending");
    expect(screen.getByRole("button", { name: "Sort by Name" }).closest("th")?.getAttribute("aria-sort")).toBe("none");
  });

  it("sorts the rows itself with sortLocally, by value or by the column's function", async () => {
    const user = userEvent.setup();
    renderWithI18n(<Table label="Users" rowKey="id" data={users} columns={columns} sortLocally />);
    await user.click(screen.getByRole("button", { name: "Sort by Name" }));
    expect(bodyRowNames()).toEqual(["alice", "bob", "carol"]);
    await user.click(screen.getByRole("button", { name: "Sort by Name" }));
    expect(bodyRowNames()).toEqual(["carol", "bob", "alice"]);
    await user.click(screen.getByRole("button", { name: "Sort by Name" }));
    expect(bodyRowNames()).toEqual(["carol", "alice", "bob"]);
    await user.click(screen.getByRole("button", { name: "Sort by Size" }));
    expect(bodyRowNames()).toEqual(["alice", "bob", "carol"]);
  });

  it("follows a controlled sort", () => {
    renderWithI18n(<Table label="Users" rowKey="id" data={users} columns={columns} sort={{ key: "size", order: "descending" }} sortLocally />);
    expect(screen.getByRole("button", { name: "Sort by Size" }).closest("th")?.getAttribute("aria-sort")).toBe("descending");
    expect(bodyRowNames()).toEqual(["carol", "bob", "alice"]);
  });
});

describe("Table selection", () => {
  const columns: Column<User>[] = [{ type: "checkbox" }, { dataIndex: "name", title: "Name" }];

  it("selects rows one by one and all from the header, which is indeterminate when some are selected", async () => {
    const user = userEvent.setup();
    const onSelectionChange = vi.fn();
    renderWithI18n(<Table label="Users" rowKey="id" data={users} columns={columns} onSelectionChange={onSelectionChange} />);
    const all = screen.getByRole<HTMLInputElement>("checkbox", { name: "Select all rows" });
    const bob = screen.getByRole<HTMLInputElement>("checkbox", { name: "Select row u3" });
    expect(all.checked).toBe(false);
    expect(all.indeterminate).toBe(false);

    await user.click(bob);
    expect(bob.checked).toBe(true);
    expect(onSelectionChange).toHaveBeenLastCalledWith(["u3"], [users[2]]);
    expect(all.checked).toBe(false);
    expect(all.indeterminate).toBe(true);

    await user.click(all);
    expect(onSelectionChange).toHaveBeenLastCalledWith(["u1", "u2", "u3"], users);
    expect(all.checked).toBe(true);
    expect(all.indeterminate).toBe(false);
    expect(screen.getAllByRole<HTMLInputElement>("checkbox", { name: /Select row/ }).every((c) => c.checked)).toBe(true);

    await user.click(screen.getByRole("checkbox", { name: "Select row u1" }));
    expect(all.indeterminate).toBe(true);
    await user.click(all);
    await user.click(all);
    expect(onSelectionChange).toHaveBeenLastCalledWith([], []);
    expect(all.indeterminate).toBe(false);
    expect(screen.getAllByRole<HTMLInputElement>("checkbox").some((c) => c.checked)).toBe(false);
  });

  it("names row checkboxes by rowLabel and follows controlled selection", () => {
    renderWithI18n(<Table label="Users" rowKey="id" rowLabel={(row) => row.name} data={users} columns={columns} selectedKeys={["u1", "u2", "u3"]} />);
    expect(screen.getByRole<HTMLInputElement>("checkbox", { name: "Select row alice" }).checked).toBe(true);
    expect(screen.getByRole<HTMLInputElement>("checkbox", { name: "Select all rows" }).checked).toBe(true);
  });

  it("with selectionField, a ticked row is sent with that form as name=row key", async () => {
    const user = userEvent.setup();
    renderWithI18n(
      <>
        <form id="bulk" aria-label="Bulk" />
        <Table label="Users" rowKey="id" data={users} columns={columns} selectionField={{ name: "id", form: "bulk" }} />
      </>,
    );
    await user.click(screen.getByRole("checkbox", { name: "Select row u1" }));
    await user.click(screen.getByRole("checkbox", { name: "Select row u3" }));
    const form = screen.getByRole<HTMLFormElement>("form", { name: "Bulk" });
    expect(new FormData(form).getAll("id")).toEqual(["u1", "u3"]);
    // The select-all box is not a value of its own.
    await user.click(screen.getByRole("checkbox", { name: "Select all rows" }));
    expect(new FormData(form).getAll("id")).toEqual(["u1", "u2", "u3"]);
  });
});

describe("Table selection follows the rows shown", () => {
  const columns: Column<User>[] = [{ type: "checkbox" }, { dataIndex: "name", title: "Name" }];

  it("drops ticked rows that leave the data (another page, a reload) and reports it; select-all takes only the rows shown", async () => {
    const user = userEvent.setup();
    const onSelectionChange = vi.fn();
    const view = renderWithI18n(<Table label="Users" rowKey="id" data={users} columns={columns} onSelectionChange={onSelectionChange} />);
    await user.click(screen.getByRole("checkbox", { name: "Select row u1" }));
    await user.click(screen.getByRole("checkbox", { name: "Select row u2" }));
    expect(onSelectionChange).toHaveBeenLastCalledWith(["u1", "u2"], [users[0], users[1]]);

    // u1 is gone (deleted, or on another page now): it is no longer selected.
    view.rerender(
      <I18nextProvider i18n={view.i18n}>
        <Table label="Users" rowKey="id" data={users.slice(1)} columns={columns} onSelectionChange={onSelectionChange} />
      </I18nextProvider>,
    );
    expect(onSelectionChange).toHaveBeenLastCalledWith(["u2"], [users[1]]);
    await user.click(screen.getByRole("checkbox", { name: "Select row u3" }));
    expect(onSelectionChange).toHaveBeenLastCalledWith(["u2", "u3"], [users[1], users[2]]);

    // Controlled with a key of a row not shown: the header and the report count only the shown rows.
    const controlled = vi.fn();
    view.rerender(
      <I18nextProvider i18n={view.i18n}>
        <Table label="Users" rowKey="id" data={users.slice(0, 2)} columns={columns} selectedKeys={["u1", "gone"]} onSelectionChange={controlled} />
      </I18nextProvider>,
    );
    expect(controlled).toHaveBeenLastCalledWith(["u1"], [users[0]]);
  });

  it("a click on a row ticks nothing; a double click on it (not on a control) opens it", async () => {
    const user = userEvent.setup();
    const onSelectionChange = vi.fn();
    const onRowDoubleClick = vi.fn();
    renderWithI18n(
      <Table label="Users" rowKey="id" data={users} columns={columns} onSelectionChange={onSelectionChange} onRowDoubleClick={onRowDoubleClick} />,
    );
    await user.click(screen.getByText("alice"));
    expect(onSelectionChange).not.toHaveBeenCalled();
    await user.dblClick(screen.getByText("alice"));
    expect(onRowDoubleClick).toHaveBeenCalledWith(users[1]);
    await user.dblClick(screen.getByRole("checkbox", { name: "Select row u3" }));
    expect(onRowDoubleClick).toHaveBeenCalledTimes(1);
  });
});

describe("Table expansion", () => {
  it("toggles a detail row from the expand column", async () => {
    const user = userEvent.setup();
    const onExpandedChange = vi.fn();
    renderWithI18n(
      <Table
        label="Users"
        rowKey="id"
        rowLabel={(row) => row.name}
        data={users}
        columns={[{ type: "expand" }, { dataIndex: "name", title: "Name" }]}
        expandedRender={(row) => <p>Details of {row.name}</p>}
        onExpandedChange={onExpandedChange}
      />,
    );
    const toggle = screen.getByRole("button", { name: "Expand row alice" });
    expect(toggle.getAttribute("aria-expanded")).toBe("false");
    expect(screen.queryByText("Details of alice")).toBeNull();

    await user.click(toggle);
    expect(toggle.getAttribute("aria-expanded")).toBe("true");
    expect(toggle.getAttribute("aria-label")).toBe("Collapse row alice");
    const detail = screen.getByText("Details of alice");
    expect(detail.closest("tr")?.id).toBe(toggle.getAttribute("aria-controls"));
    expect(detail.closest("td")?.colSpan).toBe(2);
    expect(onExpandedChange).toHaveBeenLastCalledWith(["u2"]);

    await user.click(screen.getByRole("button", { name: "Collapse row alice" }));
    expect(screen.queryByText("Details of alice")).toBeNull();
    expect(onExpandedChange).toHaveBeenLastCalledWith([]);
  });
});

describe("Table virtual rows", () => {
  it("renders a few dozen of 100,000 rows, 49 px each, in a body of at most 700 px", () => {
    renderWithI18n(<Table label="Users" rowKey="id" data={many(100_000)} columns={[{ dataIndex: "id", title: "Id" }]} />);
    const rows = screen.getAllByRole("row");
    expect(rows.length).toBeGreaterThan(15);
    expect(rows.length).toBeLessThan(40);
    expect(bodyRowNames()[0]).toBe("row-0");
    expect(rows[1]?.style.height).toBe("49px");
    expect(screen.getByRole("region", { name: "Users" }).style.maxHeight).toBe("700px");
    expect(screen.getByRole("table").getAttribute("aria-rowcount")).toBe("100001");
    // The spacers keep the full scroll height: 100,000 × 49 px in all.
    const spacers = [...document.querySelectorAll<HTMLElement>("tbody tr[aria-hidden]")];
    const rendered = rows.length - 1;
    expect(spacers.reduce((sum, tr) => sum + parseFloat(tr.style.height), 0) + rendered * 49).toBe(100_000 * 49);
  });

  it("renders the rows under the scroll position after a scroll event", () => {
    renderWithI18n(<Table label="Users" rowKey="id" data={many(100_000)} columns={[{ dataIndex: "id", title: "Id" }]} />);
    const region = screen.getByRole("region", { name: "Users" });
    region.scrollTop = 50_000 * 49;
    fireEvent.scroll(region);
    const names = bodyRowNames();
    expect(names).toContain("row-50000");
    expect(names).toContain("row-50013");
    expect(names).not.toContain("row-0");
    expect(names.length).toBeLessThan(40);
    expect(names[0]).toBe("row-49995");
    expect(screen.getAllByRole("row")[1]?.getAttribute("aria-rowindex")).toBe(String(49_995 + 2));
  });
});

describe("Table empty state", () => {
  it("is 120 px high and says there is no data", () => {
    renderWithI18n(<Table label="Users" rowKey="id" data={[]} columns={[{ type: "checkbox" }, { dataIndex: "name", title: "Name" }]} />);
    const region = screen.getByRole("region", { name: "Users" });
    expect(region.style.height).toBe("120px");
    expect(within(region).getByRole<HTMLTableCellElement>("cell", { name: "No data" }).colSpan).toBe(2);
    expect(screen.getByRole<HTMLInputElement>("checkbox", { name: "Select all rows" }).disabled).toBe(true);
  });

  it("says so in Chinese", () => {
    renderWithI18n(<Table label="用户" rowKey="id" data={[]} columns={[{ dataIndex: "name", title: "名称" }]} />, { lang: "zh" });
    const region = screen.getByRole("region", { name: "用户" });
    expect(region.style.height).toBe("120px");
    expect(within(region).getByText("暂无数据")).toBeTruthy();
  });
});

describe("Table in Chinese", () => {
  it("names its controls in Chinese", () => {
    renderWithI18n(
      <Table
        label="用户"
        rowKey="id"
        rowLabel={(row) => row.name}
        data={users}
        expandedRender={() => null}
        columns={[
          { type: "checkbox" },
          { type: "expand" },
          { dataIndex: "name", title: "名称", sort: true },
          { dataIndex: "size", title: "配额", type: "edit-modal", onEdit: () => {} },
        ]}
      />,
      { lang: "zh" },
    );
    expect(screen.getByRole("checkbox", { name: "选择全部行" })).toBeTruthy();
    expect(screen.getByRole("checkbox", { name: "选择此行 alice" })).toBeTruthy();
    expect(screen.getByRole("button", { name: "展开此行 alice" })).toBeTruthy();
    expect(screen.getByRole("button", { name: "按名称排序" })).toBeTruthy();
    expect(screen.getByRole("button", { name: "编辑 配额 alice" }).textContent).toBe("编辑");
  });
});

describe("Table time and one-line columns", () => {
  it("gives a time column at least a full date and time, whatever width the page gave", async () => {
    const { columnWidth } = await import("./table");
    expect(columnWidth<User>({ type: "time", key: "at", title: "Time", render: () => "" })).toBe("calc(17.5ch + 1.5rem)");
    expect(columnWidth<User>({ type: "time", key: "at", title: "Time", width: 120, render: () => "" })).toBe("max(120px, calc(17.5ch + 1.5rem))");
    expect(columnWidth<User>({ dataIndex: "name", width: 120 })).toBe("120px");
    expect(columnWidth<User>({ dataIndex: "name" })).toBeUndefined();
  });

  it("keeps time and nowrap cells on one line, a cut string whole in its tooltip", () => {
    const columns: Column<User>[] = [
      { type: "time", key: "at", title: "Time", render: () => "26/11/2026, 23:18:21" },
      { type: "custom", key: "who", title: "User", nowrap: true, render: (u) => `${u.name}-with-a-long-account-name` },
      { dataIndex: "note", title: "Note" },
    ];
    renderWithI18n(<Table label="Users" rowKey="id" data={users.slice(0, 1)} columns={columns} />);
    const [time, who, note] = within(screen.getAllByRole("row")[1]!).getAllByRole("cell");
    expect(time!.className).toContain("whitespace-nowrap");
    expect(who!.querySelector(".truncate")?.getAttribute("title")).toBe("carol-with-a-long-account-name");
    expect(note!.querySelector(".truncate")).toBeNull();
  });
});
