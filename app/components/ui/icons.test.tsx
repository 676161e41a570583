import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderWithI18n } from "../../test-utils";
import { FolderIcon, icons, type IconName } from "./icons";

const needed: IconName[] = [
  "file", "folder", "files", "virtual-folder", "upload", "download", "bell", "user", "chevron-down",
  "chevron-left", "chevron-right", "close", "search", "check", "more", "sort-asc", "sort-desc", "sort-none", "transfer",
];

describe("icons", () => {
  it("offer every icon a file product needs", () => {
    expect(Object.keys(icons).sort()).toEqual([...needed].sort());
  });

  it.each(needed)("%s is an inline SVG hidden from assistive technology, 16 px by default", (name) => {
    const Icon = icons[name];
    const { container } = renderWithI18n(<Icon />);
    const svg = container.querySelector("svg");
    expect(svg?.getAttribute("aria-hidden")).toBe("true");
    expect(svg?.getAttribute("width")).toBe("16");
    expect(svg?.getAttribute("height")).toBe("16");
    expect(svg?.children.length).toBeGreaterThan(0);
    expect(screen.queryByRole("img")).toBeNull();
  });

  it("take a size", () => {
    const { container } = renderWithI18n(<FolderIcon size={24} />);
    expect(container.querySelector("svg")?.getAttribute("width")).toBe("24");
    expect(container.querySelector("svg")?.getAttribute("height")).toBe("24");
  });

  it("become a named image when given a title", () => {
    renderWithI18n(<FolderIcon title="文件夹" />, { lang: "zh" });
    const img = screen.getByRole("img", { name: "文件夹" });
    expect(img.getAttribute("aria-hidden")).toBeNull();
  });

  it("pass other SVG props through", () => {
    const { container } = renderWithI18n(<FolderIcon className="text-primary" />);
    expect(container.querySelector("svg")?.getAttribute("class")).toBe("text-primary");
  });
});
