import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderWithI18n } from "../../test-utils";
import { Spinner, SpinnerGlyph } from "./spinner";

describe("Spinner", () => {
  it("is a status named Loading in English", () => {
    renderWithI18n(<Spinner />);
    expect(screen.getByRole("status", { name: "Loading" })).toBeTruthy();
  });

  it("is a status named 加载中 in Chinese", () => {
    renderWithI18n(<Spinner />, { lang: "zh" });
    expect(screen.getByRole("status", { name: "加载中" })).toBeTruthy();
  });

  it("takes another label and a size", () => {
    renderWithI18n(<Spinner label="Uploading" size={32} />);
    const svg = screen.getByRole("status", { name: "Uploading" }).querySelector("svg");
    expect(svg?.getAttribute("width")).toBe("32");
    expect(svg?.getAttribute("aria-hidden")).toBe("true");
  });

  it("the bare glyph is hidden from assistive technology", () => {
    renderWithI18n(<SpinnerGlyph />);
    expect(screen.queryByRole("status")).toBeNull();
    expect(document.querySelector("svg")?.getAttribute("aria-hidden")).toBe("true");
  });
});
