import { act, fireEvent, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { advance, renderWithI18n, fakeTimersPerTest } from "../../test-utils";
import { StaticToast, ToastProvider, useToast, type ToastApi } from "./toast";

fakeTimersPerTest();

/** Renders a provider and hands back its API, as a page's event handler would use it. */
function setup(lang: "en" | "zh" = "en") {
  let api: ToastApi | undefined;
  function Grab() {
    api = useToast();
    return null;
  }
  renderWithI18n(
    <ToastProvider>
      <Grab />
    </ToastProvider>,
    { lang },
  );
  const toast = api as ToastApi;
  return {
    toast,
    show<T>(fn: (t: ToastApi) => T): T {
      let result: T | undefined;
      act(() => {
        result = fn(toast);
      });
      return result as T;
    },
  };
}

describe("toasts", () => {
  it("disappear after 3000 ms by default", () => {
    const { show } = setup();
    show((t) => t.success("Renamed"));
    advance(2999);
    expect(screen.getByRole("status").textContent).toBe("Renamed");
    advance(1);
    expect(screen.queryByRole("status")).toBeNull();
  });

  it("take a custom duration", () => {
    const { show } = setup();
    show((t) => t.info("Quick", { duration: 500 }));
    advance(499);
    expect(screen.getByRole("status")).toBeTruthy();
    advance(1);
    expect(screen.queryByRole("status")).toBeNull();
  });

  it("a loading toast stays until removed", () => {
    const { show } = setup();
    const id = show((t) => t.loading("Uploading"));
    advance(60_000);
    expect(screen.getByRole("status").textContent).toBe("Uploading");
    show((t) => t.remove(id));
    expect(screen.queryByRole("status")).toBeNull();
  });

  it("remove() takes a toast away before its time", () => {
    const { show } = setup();
    const id = show((t) => t.error("Boom"));
    show((t) => t.remove(id));
    expect(screen.queryByRole("alert")).toBeNull();
  });

  it("show the same message only once while it is visible, and again afterwards", () => {
    const { show } = setup();
    const first = show((t) => t.error("Path not exist"));
    advance(1000);
    const second = show((t) => t.error("Path not exist"));
    expect(second).toBe(first);
    expect(screen.getAllByRole("alert")).toHaveLength(1);
    show((t) => t.error("Other failure"));
    expect(screen.getAllByRole("alert")).toHaveLength(2);
    // The first one keeps its own 3 s; repeating it did not extend it.
    advance(2000);
    expect(screen.getAllByRole("alert").map((el) => el.textContent)).toEqual(["Other failure"]);
    const third = show((t) => t.error("Path not exist"));
    expect(third).not.toBe(first);
    expect(screen.getAllByRole("alert")).toHaveLength(2);
  });

  it("use role status for info, success and loading, and alert for warning and error", () => {
    const { show } = setup();
    show((t) => {
      t.info("i");
      t.success("s");
      t.loading("l");
      t.warning("w");
      t.error("e");
    });
    expect(screen.getAllByRole("status").map((el) => el.textContent)).toEqual(["i", "s", "l"]);
    expect(screen.getAllByRole("alert").map((el) => el.textContent)).toEqual(["w", "e"]);
  });

  it("sit fixed 20 px from the top, centred, in a named region", () => {
    const { show } = setup();
    show((t) => t.info("Hello"));
    const region = screen.getByRole("region", { name: "Notifications" });
    expect(region.style.top).toBe("20px");
    expect(region.style.left).toBe("50%");
    expect(region.style.transform).toBe("translateX(-50%)");
  });

  it("translate messages that are known keys and leave other text alone", () => {
    const { show } = setup();
    show((t) => {
      t.error("global.server.error");
      t.info("Copy succeeded");
    });
    expect(screen.getByRole("alert").textContent).toBe("Service unavailable: the server is overloaded or down. Please try again later.");
    expect(screen.getByRole("status").textContent).toBe("Copy succeeded");
  });

  it("a static toast (a page's answer before JavaScript) looks the same: translated, in the named region", () => {
    renderWithI18n(<StaticToast type="error" message="global.no-data" />, { lang: "zh" });
    expect(screen.getByRole("region", { name: "通知" }).style.top).toBe("20px");
    expect(screen.getByRole("alert").textContent).toBe("暂无数据");
  });

  it("render in Chinese", () => {
    const { show } = setup("zh");
    show((t) => t.warning("global.no-data"));
    expect(screen.getByRole("region", { name: "通知" })).toBeTruthy();
    expect(screen.getByRole("alert").textContent).toBe("暂无数据");
  });

  it("work from an event handler", () => {
    function Page() {
      const toast = useToast();
      return (
        <button type="button" onClick={() => toast.success("Saved")}>
          Save
        </button>
      );
    }
    renderWithI18n(
      <ToastProvider>
        <Page />
      </ToastProvider>,
    );
    fireEvent.click(screen.getByRole("button", { name: "Save" }));
    expect(screen.getByRole("status").textContent).toBe("Saved");
  });

  it("useToast outside the provider throws", () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    function Orphan() {
      useToast();
      return null;
    }
    expect(() => renderWithI18n(<Orphan />)).toThrow(/ToastProvider/);
  });
});
