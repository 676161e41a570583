import { screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useState } from "react";
import { describe, expect, it, vi } from "vitest";
import { renderWithI18n } from "../../test-utils";
import { NoticeBar, type NoticeState } from "./notice-bar";

describe("NoticeBar", () => {
  it("shows nothing without a state", () => {
    renderWithI18n(<NoticeBar state={null} />);
    expect(screen.queryByRole("status")).toBeNull();
    expect(screen.queryByRole("alert")).toBeNull();
  });

  it("prompts to start the client and calls onStartClient", async () => {
    const onStartClient = vi.fn();
    renderWithI18n(<NoticeBar state="start-client" onStartClient={onStartClient} />);
    const bar = screen.getByRole("status");
    expect(bar.textContent).toContain("Start the transfer client to upload and download at full speed.");
    await userEvent.click(screen.getByRole("button", { name: "Start client" }));
    expect(onStartClient).toHaveBeenCalledTimes(1);
  });

  it("keeps offering to start the client while it is starting", async () => {
    const onStartClient = vi.fn();
    renderWithI18n(<NoticeBar state="starting" onStartClient={onStartClient} />);
    expect(screen.getByRole("status").textContent).toContain("Starting the transfer client…");
    await userEvent.click(screen.getByRole("button", { name: "Start client" }));
    expect(onStartClient).toHaveBeenCalledTimes(1);
  });

  it("tells onClose which state the user closed", async () => {
    const onClose = vi.fn();
    renderWithI18n(<NoticeBar state="start-client" onClose={onClose} />);
    await userEvent.click(screen.getByRole("button", { name: "Close" }));
    expect(onClose).toHaveBeenCalledWith("start-client");
    expect(screen.queryByRole("status")).toBeNull();
  });

  it.each<NoticeState>(["update", "low-version"])("offers an upgrade in the %s state", async (state) => {
    const onUpgrade = vi.fn();
    renderWithI18n(<NoticeBar state={state} version="2.3.0" onUpgrade={onUpgrade} />);
    await userEvent.click(screen.getByRole("button", { name: "Upgrade" }));
    expect(onUpgrade).toHaveBeenCalledTimes(1);
  });

  it("names the minimum version in the low-version state", () => {
    renderWithI18n(<NoticeBar state="low-version" version="2.3.0" />);
    expect(screen.getByRole("status").textContent).toContain("Your transfer client is older than version 2.3.0. Please upgrade it.");
  });

  it("announces a disconnect as an alert", () => {
    renderWithI18n(<NoticeBar state="disconnect" />);
    expect(screen.queryByRole("status")).toBeNull();
    expect(screen.getByRole("alert").textContent).toContain("Disconnected from the server.");
  });

  it("hides on close until the state changes", async () => {
    renderWithI18n(<Harness />);
    await userEvent.click(screen.getByRole("button", { name: "Close" }));
    expect(screen.queryByRole("status")).toBeNull();
    // The same state again stays hidden.
    await userEvent.click(screen.getByRole("button", { name: "set update" }));
    expect(screen.queryByRole("status")).toBeNull();
    await userEvent.click(screen.getByRole("button", { name: "set disconnect" }));
    expect(screen.getByRole("alert")).toBeTruthy();
    // Back to the state that was closed before: it is news again.
    await userEvent.click(screen.getByRole("button", { name: "set update" }));
    expect(screen.getByRole("status").textContent).toContain("A new version of the transfer client is available.");
  });

  it("speaks Chinese", () => {
    renderWithI18n(<NoticeBar state="low-version" version="2.3.0" />, { lang: "zh" });
    expect(screen.getByRole("status").textContent).toContain("您的传输客户端版本低于 2.3.0，请升级。");
    expect(screen.getByRole("button", { name: "升级" })).toBeTruthy();
    expect(screen.getByRole("button", { name: "关闭" })).toBeTruthy();
  });
});

function Harness() {
  const [state, setState] = useState<NoticeState>("update");
  return (
    <>
      <NoticeBar state={state} />
      <button type="button" onClick={() => setState("update")}>
        set update
      </button>
      <button type="button" onClick={() => setState("disconnect")}>
        set disconnect
      </button>
    </>
  );
}
