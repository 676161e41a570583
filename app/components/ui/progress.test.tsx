import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderWithI18n } from "../../test-utils";
import { Progress } from "./progress";

describe("Progress", () => {
  it("is a progressbar named by its label, with the percent done and its detail", () => {
    renderWithI18n(<Progress label="Copying users" value={250} max={1000} detail="250 of 1000 rows" />);
    const bar = screen.getByRole("progressbar", { name: "Copying users" });
    expect(bar.getAttribute("aria-valuenow")).toBe("25");
    expect(bar.getAttribute("aria-valuetext")).toBe("25% 250 of 1000 rows");
    expect(screen.getByText("250 of 1000 rows")).toBeTruthy();
  });

  it("stays within 0–100 and shows 0 for nothing to do", () => {
    renderWithI18n(<Progress label="a" value={5} max={0} />);
    expect(screen.getByRole("progressbar", { name: "a" }).getAttribute("aria-valuenow")).toBe("0");
  });
});
