import { screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { renderWithI18n } from "../../test-utils";
import { ErrorFallback } from "./error-fallback";

describe("ErrorFallback", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("shows a heading, the tip and a Refresh button, announced as an alert", () => {
    renderWithI18n(<ErrorFallback />);
    const alert = screen.getByRole("alert", { name: "Something went wrong" });
    expect(alert.textContent).toContain("Sorry, this page ran into a problem. Refresh to try again.");
    expect(screen.getByRole("heading", { name: "Something went wrong" })).toBeTruthy();
    expect(screen.getByRole("button", { name: "Refresh" })).toBeTruthy();
    expect(screen.queryByText(/Error code/)).toBeNull();
  });

  it("reloads the page when Refresh is pressed", async () => {
    const reload = vi.spyOn(window.location, "reload").mockImplementation(() => undefined);
    renderWithI18n(<ErrorFallback />);
    await userEvent.click(screen.getByRole("button", { name: "Refresh" }));
    expect(reload).toHaveBeenCalledTimes(1);
  });

  it("shows the status code and details when given", () => {
    renderWithI18n(<ErrorFallback status={404} details="Not Found" />);
    expect(screen.getByText("Error code: 404")).toBeTruthy();
    expect(screen.getByText("Not Found")).toBeTruthy();
  });

  it("for an answer to a post: its own tip and a plain link back to the page instead of Refresh", () => {
    renderWithI18n(<ErrorFallback status={413} title="Too large" tip="At most 64 KB" backHref="/signin?redirectTo=%2Flink" />);
    expect(screen.getByText("At most 64 KB")).toBeTruthy();
    expect(screen.queryByText(/Refresh to try again/)).toBeNull();
    expect(screen.queryByRole("button", { name: "Refresh" })).toBeNull();
    expect(screen.getByRole("link", { name: "Back to the page" }).getAttribute("href")).toBe("/signin?redirectTo=%2Flink");
  });

  it("speaks Chinese", () => {
    renderWithI18n(<ErrorFallback status={500} />, { lang: "zh" });
    expect(screen.getByRole("heading", { name: "页面出错了" })).toBeTruthy();
    expect(screen.getByText("错误码：500")).toBeTruthy();
    expect(screen.getByRole("button", { name: "刷新" })).toBeTruthy();
  });
});
