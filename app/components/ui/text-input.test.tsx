import { cleanup, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { createRef } from "react";
import { describe, expect, it } from "vitest";
import { renderWithI18n } from "../../test-utils";
import { TextInput } from "./text-input";

const describedBy = (el: HTMLElement) =>
  (el.getAttribute("aria-describedby") ?? "")
    .split(" ")
    .filter(Boolean)
    .map((id) => document.getElementById(id)?.textContent);

describe("TextInput", () => {
  it("is a text box named by its label that takes typing", async () => {
    renderWithI18n(<TextInput label="Account" />);
    const input = screen.getByRole("textbox", { name: "Account" }) as HTMLInputElement;
    await userEvent.type(input, "alice");
    expect(input.value).toBe("alice");
    expect(input.getAttribute("aria-invalid")).toBeNull();
  });

  it("links its description with aria-describedby", () => {
    renderWithI18n(<TextInput label="Account" description="3 to 30 letters, digits or _" />);
    expect(describedBy(screen.getByLabelText("Account"))).toEqual(["3 to 30 letters, digits or _"]);
  });

  it("announces an error beneath, marks the field invalid and links both texts", () => {
    renderWithI18n(<TextInput label="Account" description="Your sign-in name" error="Account taken" />);
    const input = screen.getByRole("textbox", { name: "Account" });
    expect(input.getAttribute("aria-invalid")).toBe("true");
    expect(screen.getByRole("alert").textContent).toBe("Account taken");
    expect(describedBy(input)).toEqual(["Your sign-in name", "Account taken"]);
    // The error sits after (beneath) the input.
    expect(input.compareDocumentPosition(screen.getByRole("alert")) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
  });

  it("translates an error that is a message key, in English and Chinese", () => {
    renderWithI18n(<TextInput label="Account" error="global.field.required" />);
    expect(screen.getByRole("alert").textContent).toBe("This field is required");
    cleanup();
    renderWithI18n(<TextInput label="账号" error="global.field.required" />, { lang: "zh" });
    expect(screen.getByRole("alert").textContent).toBe("此项为必填项");
    expect(screen.getByRole("textbox", { name: "账号" }).getAttribute("aria-invalid")).toBe("true");
  });

  it("works as a plain input in a form: name, defaultValue, required", () => {
    renderWithI18n(
      <form aria-label="profile">
        <TextInput label="Email" name="email" type="email" defaultValue="a@b.co" required />
      </form>,
    );
    const form = screen.getByRole("form", { name: "profile" }) as HTMLFormElement;
    expect(new FormData(form).get("email")).toBe("a@b.co");
    const input = screen.getByRole("textbox", { name: "Email" }) as HTMLInputElement;
    expect(input.required).toBe(true);
    expect(input.type).toBe("email");
  });

  it("forwards its ref to the input and keeps a given id", () => {
    const ref = createRef<HTMLInputElement>();
    renderWithI18n(<TextInput ref={ref} id="account" label="Account" />);
    expect(ref.current).toBe(screen.getByLabelText("Account"));
    expect(ref.current?.id).toBe("account");
  });

  it("gives two fields different ids", () => {
    renderWithI18n(
      <>
        <TextInput label="One" error="bad" />
        <TextInput label="Two" error="worse" />
      </>,
    );
    expect(describedBy(screen.getByLabelText("One"))).toEqual(["bad"]);
    expect(describedBy(screen.getByLabelText("Two"))).toEqual(["worse"]);
  });
});
