import { screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { renderWithI18n } from "../../test-utils";
import { ToggleGroup } from "./toggle-group";

describe("ToggleGroup", () => {
  it("is a named group of buttons, the chosen one pressed, and reports a choice", async () => {
    const onChange = vi.fn();
    renderWithI18n(
      <ToggleGroup
        label="View"
        value="list"
        onChange={onChange}
        options={[
          { value: "list", label: "List" },
          { value: "tree", label: "Tree" },
        ]}
      />,
    );
    const group = screen.getByRole("group", { name: "View" });
    expect(group.querySelectorAll("button")).toHaveLength(2);
    expect(screen.getByRole("button", { name: "List" }).getAttribute("aria-pressed")).toBe("true");
    expect(screen.getByRole("button", { name: "Tree" }).getAttribute("aria-pressed")).toBe("false");
    await userEvent.click(screen.getByRole("button", { name: "Tree" }));
    expect(onChange).toHaveBeenCalledWith("tree");
  });
});
