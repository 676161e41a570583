import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { renderWithI18n } from "../../test-utils";
import { Pagination } from "./pagination";

const pageNumbers = () =>
  within(screen.getByRole("list"))
    .getAllByRole("button")
    .map((el) => el.textContent)
    .filter((text) => /^\d+$/.test(text ?? ""));

describe("Pagination (buttons)", () => {
  it("starts at page 1 of size 10 in a labelled nav, with the total and sizes 10–50", () => {
    renderWithI18n(<Pagination total={200} />);
    const nav = screen.getByRole("navigation", { name: "Pagination" });
    expect(within(nav).getByText("Total 200 items")).toBeTruthy();
    expect(screen.getByRole("button", { name: "Page 1" }).getAttribute("aria-current")).toBe("page");
    expect(pageNumbers()).toEqual(["1", "2", "3", "4", "5", "6", "7", "20"]);
    const select = screen.getByRole<HTMLSelectElement>("combobox", { name: "Items per page" });
    expect(select.value).toBe("10");
    expect(within(select).getAllByRole("option").map((o) => o.textContent)).toEqual([
      "10 / page",
      "20 / page",
      "30 / page",
      "40 / page",
      "50 / page",
    ]);
  });

  it("disables previous on the first page and next on the last", async () => {
    const user = userEvent.setup();
    renderWithI18n(<Pagination total={25} />);
    const previous = screen.getByRole<HTMLButtonElement>("button", { name: "Previous page" });
    const next = screen.getByRole<HTMLButtonElement>("button", { name: "Next page" });
    expect(previous.disabled).toBe(true);
    expect(next.disabled).toBe(false);
    await user.click(next);
    await user.click(next);
    expect(screen.getByRole("button", { name: "Page 3" }).getAttribute("aria-current")).toBe("page");
    expect(next.disabled).toBe(true);
    expect(previous.disabled).toBe(false);
  });

  it("moves by page number, previous and next and reports the change", async () => {
    const user = userEvent.setup();
    const onChange = vi.fn();
    renderWithI18n(<Pagination total={200} onChange={onChange} />);
    await user.click(screen.getByRole("button", { name: "Page 20" }));
    expect(onChange).toHaveBeenLastCalledWith(20, 10);
    expect(pageNumbers()).toEqual(["1", "14", "15", "16", "17", "18", "19", "20"]);
    expect(screen.getByRole("button", { name: "Page 1" }).getAttribute("aria-current")).toBeNull();
    await user.click(screen.getByRole("button", { name: "Previous page" }));
    expect(onChange).toHaveBeenLastCalledWith(19, 10);
  });

  it("clamps the current page to the new last page when the size grows", async () => {
    const user = userEvent.setup();
    const onChange = vi.fn();
    renderWithI18n(<Pagination total={95} defaultPage={10} onChange={onChange} />);
    expect(screen.getByRole("button", { name: "Page 10" }).getAttribute("aria-current")).toBe("page");
    await user.selectOptions(screen.getByRole("combobox", { name: "Items per page" }), "50");
    expect(onChange).toHaveBeenLastCalledWith(2, 50);
    expect(pageNumbers()).toEqual(["1", "2"]);
    expect(screen.getByRole("button", { name: "Page 2" }).getAttribute("aria-current")).toBe("page");
    expect(screen.getByRole<HTMLButtonElement>("button", { name: "Next page" }).disabled).toBe(true);
  });

  it("keeps the page when it still exists after a size change", async () => {
    const user = userEvent.setup();
    const onChange = vi.fn();
    renderWithI18n(<Pagination total={95} defaultPage={2} onChange={onChange} />);
    await user.selectOptions(screen.getByRole("combobox", { name: "Items per page" }), "20");
    expect(onChange).toHaveBeenLastCalledWith(2, 20);
  });

  it("follows controlled page and size props", () => {
    renderWithI18n(<Pagination total={500} page={30} pageSize={20} />);
    expect(screen.getByRole("button", { name: "Page 25" }).getAttribute("aria-current")).toBe("page");
    expect(screen.getByRole<HTMLSelectElement>("combobox", { name: "Items per page" }).value).toBe("20");
  });

  it("speaks Chinese", () => {
    renderWithI18n(<Pagination total={42} />, { lang: "zh" });
    const nav = screen.getByRole("navigation", { name: "分页" });
    expect(within(nav).getByText("共 42 条")).toBeTruthy();
    expect(screen.getByRole("button", { name: "上一页" })).toBeTruthy();
    expect(screen.getByRole("button", { name: "下一页" })).toBeTruthy();
    expect(screen.getByRole("button", { name: "第 5 页" })).toBeTruthy();
    expect(within(screen.getByRole("combobox", { name: "每页条数" })).getByRole("option", { name: "30 条/页" })).toBeTruthy();
  });
});

describe("Pagination (links, without JavaScript)", () => {
  const hrefFor = (page: number, size: number) => `/admin/users?q=ann&page=${page}&size=${size}`;

  it("renders plain links for pages, previous and next, and no buttons but the size form's submit", () => {
    renderWithI18n(<Pagination total={95} page={2} pageSize={10} hrefFor={hrefFor} />);
    expect(screen.getByRole("link", { name: "Page 3" }).getAttribute("href")).toBe("/admin/users?q=ann&page=3&size=10");
    expect(screen.getByRole("link", { name: "Page 2" }).getAttribute("aria-current")).toBe("page");
    expect(screen.getByRole("link", { name: "Previous page" }).getAttribute("href")).toBe("/admin/users?q=ann&page=1&size=10");
    expect(screen.getByRole("link", { name: "Next page" }).getAttribute("href")).toBe("/admin/users?q=ann&page=3&size=10");
    expect(screen.getAllByRole("button").map((b) => b.textContent)).toEqual(["Apply"]);
  });

  it("marks previous and next as disabled links without an address at the ends", () => {
    const { unmount } = renderWithI18n(<Pagination total={95} page={1} hrefFor={hrefFor} />);
    const previous = screen.getByRole("link", { name: "Previous page" });
    expect(previous.getAttribute("aria-disabled")).toBe("true");
    expect(previous.hasAttribute("href")).toBe(false);
    unmount();
    renderWithI18n(<Pagination total={95} page={10} hrefFor={hrefFor} />);
    expect(screen.getByRole("link", { name: "Next page" }).getAttribute("aria-disabled")).toBe("true");
  });

  it("shows a page past the end (e.g. after a size change) as the last page", () => {
    renderWithI18n(<Pagination total={95} page={10} pageSize={50} hrefFor={hrefFor} />);
    expect(screen.getByRole("link", { name: "Page 2" }).getAttribute("aria-current")).toBe("page");
  });

  it("changes the size with a GET form that keeps the other query parameters", () => {
    renderWithI18n(<Pagination total={95} page={3} pageSize={20} hrefFor={hrefFor} />);
    const select = screen.getByRole<HTMLSelectElement>("combobox", { name: "Items per page" });
    const form = select.form;
    expect(form).not.toBeNull();
    expect(form?.getAttribute("method")).toBe("get");
    expect(form?.getAttribute("action")).toBe("/admin/users");
    expect(select.name).toBe("size");
    expect(select.value).toBe("20");
    const hidden = [...(form?.querySelectorAll<HTMLInputElement>("input[type=hidden]") ?? [])].map((i) => [i.name, i.value]);
    expect(hidden).toEqual([
      ["q", "ann"],
      ["page", "3"],
    ]);
    expect(within(form as HTMLFormElement).getByRole("button", { name: "Apply" }).getAttribute("type")).toBe("submit");
  });

  it("with an onChange too, a new size applies at once (clamping the page), Apply left for pages without JavaScript", async () => {
    const onChange = vi.fn();
    renderWithI18n(<Pagination total={95} page={8} pageSize={10} hrefFor={hrefFor} onChange={onChange} />);
    await userEvent.selectOptions(screen.getByRole("combobox", { name: "Items per page" }), "20");
    expect(onChange).toHaveBeenCalledWith(5, 20);
  });

  it("submits to the current address when hrefFor returns only a query", () => {
    renderWithI18n(<Pagination total={95} hrefFor={(page, size) => `?page=${page}&size=${size}`} />);
    const form = screen.getByRole<HTMLSelectElement>("combobox", { name: "Items per page" }).form;
    expect(form?.hasAttribute("action")).toBe(false);
  });

  it("speaks Chinese in link mode", () => {
    renderWithI18n(<Pagination total={95} hrefFor={hrefFor} />, { lang: "zh" });
    expect(screen.getByRole("link", { name: "第 2 页" })).toBeTruthy();
    expect(screen.getByRole("button", { name: "应用" })).toBeTruthy();
  });
});
