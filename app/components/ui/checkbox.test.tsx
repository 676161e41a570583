import { screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useState } from "react";
import { describe, expect, it, vi } from "vitest";
import { renderWithI18n } from "../../test-utils";
import { Checkbox } from "./checkbox";

function Controlled({ onChange }: { onChange?: (v: boolean) => void }) {
  const [checked, setChecked] = useState(false);
  return (
    <Checkbox
      label="Email notice"
      checked={checked}
      onChange={(v) => {
        setChecked(v);
        onChange?.(v);
      }}
    />
  );
}

describe("Checkbox", () => {
  it("has its label as accessible name and starts unchecked", () => {
    renderWithI18n(<Checkbox label="Email notice" />);
    const box = screen.getByRole("checkbox", { name: "Email notice" });
    expect(box.getAttribute("aria-checked")).toBe("false");
  });

  it("toggles by click and reports each change", async () => {
    const onChange = vi.fn();
    renderWithI18n(<Controlled onChange={onChange} />);
    const box = screen.getByRole("checkbox", { name: "Email notice" });
    await userEvent.click(box);
    expect(box.getAttribute("aria-checked")).toBe("true");
    await userEvent.click(box);
    expect(box.getAttribute("aria-checked")).toBe("false");
    expect(onChange.mock.calls).toEqual([[true], [false]]);
  });

  it("toggles by clicking its label", async () => {
    renderWithI18n(<Controlled />);
    await userEvent.click(screen.getByText("Email notice"));
    expect(screen.getByRole("checkbox", { name: "Email notice" }).getAttribute("aria-checked")).toBe("true");
  });

  it("toggles by keyboard Space after tabbing to it", async () => {
    const user = userEvent.setup();
    renderWithI18n(<Controlled />);
    await user.tab();
    const box = screen.getByRole("checkbox", { name: "Email notice" });
    expect(document.activeElement).toBe(box);
    await user.keyboard(" ");
    expect(box.getAttribute("aria-checked")).toBe("true");
    await user.keyboard(" ");
    expect(box.getAttribute("aria-checked")).toBe("false");
  });

  it("shows a checked value it is given", () => {
    renderWithI18n(<Checkbox label="On" checked onChange={() => {}} />);
    expect(screen.getByRole("checkbox", { name: "On" }).getAttribute("aria-checked")).toBe("true");
  });

  it("reports indeterminate as mixed", () => {
    renderWithI18n(<Checkbox label="Select all rows" indeterminate />);
    expect(screen.getByRole("checkbox", { name: "Select all rows" }).getAttribute("aria-checked")).toBe("mixed");
  });

  it("ignores clicks and Space when disabled", async () => {
    const user = userEvent.setup();
    const onChange = vi.fn();
    renderWithI18n(<Checkbox label="Locked" disabled onChange={onChange} />);
    const box = screen.getByRole("checkbox", { name: "Locked" });
    expect(box.getAttribute("aria-disabled")).toBe("true");
    await user.click(box);
    box.focus();
    await user.keyboard(" ");
    expect(onChange).not.toHaveBeenCalled();
    expect(box.getAttribute("aria-checked")).toBe("false");
  });

  it("keeps a hidden label as its accessible name (Chinese)", () => {
    renderWithI18n(<Checkbox label="选择此行" hideLabel />, { lang: "zh" });
    expect(screen.getByRole("checkbox", { name: "选择此行" })).toBeTruthy();
  });

  it("sends its value with a form while checked", async () => {
    renderWithI18n(
      <form aria-label="settings">
        <Checkbox label="Notify" name="notify" value="yes" defaultChecked />
      </form>,
    );
    const form = screen.getByRole("form", { name: "settings" }) as HTMLFormElement;
    expect(new FormData(form).get("notify")).toBe("yes");
    await userEvent.click(screen.getByRole("checkbox", { name: "Notify" }));
    expect(new FormData(form).get("notify")).toBeNull();
  });
});
