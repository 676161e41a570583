import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderWithI18n } from "../../test-utils";
import { Empty } from "./empty";

describe("Empty", () => {
  it("shows the default 'No data' text with a decorative picture", () => {
    const { container } = renderWithI18n(<Empty />);
    expect(screen.getByText("No data")).toBeTruthy();
    const svg = container.querySelector("svg");
    expect(svg?.getAttribute("aria-hidden")).toBe("true");
    expect(screen.queryByRole("img")).toBeNull();
  });

  it("shows the Chinese default text", () => {
    renderWithI18n(<Empty />, { lang: "zh" });
    expect(screen.getByText("暂无数据")).toBeTruthy();
  });

  it("takes its own text and extra content", () => {
    renderWithI18n(
      <Empty description="No shares yet">
        <button type="button">Create share</button>
      </Empty>,
    );
    expect(screen.getByText("No shares yet")).toBeTruthy();
    expect(screen.queryByText("No data")).toBeNull();
    expect(screen.getByRole("button", { name: "Create share" })).toBeTruthy();
  });
});
