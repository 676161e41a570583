import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { renderWithI18n } from "../../test-utils";
import { Breadcrumb } from "./breadcrumb";

describe("Breadcrumb", () => {
  it("links or buttons to every part but the last, which is the current page", async () => {
    const open = vi.fn();
    renderWithI18n(
      <Breadcrumb
        label="Folder path"
        lead={<span>Team</span>}
        crumbs={[
          { key: "/", label: "All files", href: "?" },
          { key: "/a", label: "a", onSelect: open },
          { key: "/a/b", label: "b" },
        ]}
      />,
    );
    const nav = screen.getByRole("navigation", { name: "Folder path" });
    expect(within(nav).getByRole("link", { name: "All files" }).getAttribute("href")).toBe("?");
    await userEvent.setup().click(within(nav).getByRole("button", { name: "a" }));
    expect(open).toHaveBeenCalledOnce();
    expect(within(nav).getByText("b").getAttribute("aria-current")).toBe("page");
    expect(within(nav).getAllByRole("listitem").map((item) => item.textContent)).toEqual(["Team/", "All files/", "a/", "b"]);
  });
});
