import { screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useState } from "react";
import { describe, expect, it, vi } from "vitest";
import { renderWithI18n } from "../../test-utils";
import { NumberInput, digitsOnly } from "./number-input";

function Controlled({ onChange }: { onChange?: (v: string) => void }) {
  const [value, setValue] = useState("");
  return (
    <>
      <NumberInput
        label="Port"
        value={value}
        onChange={(v) => {
          setValue(v);
          onChange?.(v);
        }}
      />
      <output aria-label="port value">{value}</output>
    </>
  );
}

describe("NumberInput", () => {
  it("keeps only digits as the user types: a1b2 → 12", async () => {
    const onChange = vi.fn();
    renderWithI18n(<Controlled onChange={onChange} />);
    const input = screen.getByRole("textbox", { name: "Port" }) as HTMLInputElement;
    await userEvent.type(input, "a1b2");
    expect(input.value).toBe("12");
    expect(screen.getByRole("status", { name: "port value" }).textContent).toBe("12");
    expect(onChange).toHaveBeenLastCalledWith("12");
  });

  it("strips signs, dots, spaces and letters from pasted text", async () => {
    renderWithI18n(<Controlled />);
    const input = screen.getByRole("textbox", { name: "Port" }) as HTMLInputElement;
    await userEvent.click(input);
    await userEvent.paste("-8 0.9x0");
    expect(input.value).toBe("8090");
  });

  it("works uncontrolled too, from a default value, and posts the digits with a form", async () => {
    renderWithI18n(
      <form aria-label="server">
        <NumberInput label="Port" name="port" defaultValue="80" />
      </form>,
    );
    const input = screen.getByRole("textbox", { name: "Port" }) as HTMLInputElement;
    await userEvent.type(input, "9-0");
    expect(input.value).toBe("8090");
    expect(new FormData(screen.getByRole("form", { name: "server" }) as HTMLFormElement).get("port")).toBe("8090");
  });

  it("asks for a numeric keyboard", () => {
    renderWithI18n(<NumberInput label="Port" />);
    expect(screen.getByRole("textbox", { name: "Port" }).getAttribute("inputmode")).toBe("numeric");
  });

  it("shows and announces a translated error like TextInput (Chinese)", () => {
    renderWithI18n(<NumberInput label="端口" error="global.field.required" />, { lang: "zh" });
    const input = screen.getByRole("textbox", { name: "端口" });
    expect(input.getAttribute("aria-invalid")).toBe("true");
    const alert = screen.getByRole("alert");
    expect(alert.textContent).toBe("此项为必填项");
    expect(input.getAttribute("aria-describedby")).toBe(alert.id);
  });

  it("digitsOnly keeps ASCII digits only", () => {
    expect(digitsOnly("a1b2")).toBe("12");
    expect(digitsOnly("１２3")).toBe("3");
    expect(digitsOnly("007")).toBe("007");
  });
});
