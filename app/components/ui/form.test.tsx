import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { type FormEvent, type FormHTMLAttributes } from "react";
import { describe, expect, it, vi } from "vitest";
import * as z from "zod";
import { renderWithI18n } from "../../test-utils";
import { FormBuilder, parseFormData, type FormField, type FormLayout } from "./form";

const nameSchema = z.object({ name: z.string().min(3, "At least 3 characters") });
const nameField: FormField[] = [{ name: "name", label: "Account", type: "input" }];

describe("FormBuilder layouts", () => {
  it("horizontal: label spans 4 and field 20 of a 24-column grid", () => {
    renderWithI18n(<FormBuilder schema={nameSchema} fields={nameField} />);
    const input = screen.getByRole("textbox", { name: "Account" });
    const row = input.parentElement?.parentElement as HTMLElement;
    expect(row.style.gridTemplateColumns).toBe("repeat(24, minmax(0, 1fr))");
    expect(screen.getByText("Account").style.gridColumn).toBe("span 4 / span 4");
    expect(input.parentElement?.style.gridColumn).toBe("span 20 / span 20");
  });

  it.each<FormLayout>(["vertical", "inline"])("%s: no grid and no search buttons", (layout) => {
    renderWithI18n(<FormBuilder schema={nameSchema} fields={nameField} layout={layout} />);
    const input = screen.getByRole("textbox", { name: "Account" });
    const form = input.closest("form") as HTMLFormElement;
    expect(form.getAttribute("data-layout")).toBe(layout);
    expect(form.querySelector("[style]")).toBeNull();
    expect(screen.queryByRole("button")).toBeNull();
  });

  it("renders a real post form with an action", () => {
    renderWithI18n(<FormBuilder schema={nameSchema} fields={nameField} action="/admin/users" />);
    const form = screen.getByRole("textbox", { name: "Account" }).closest("form") as HTMLFormElement;
    expect(form.getAttribute("method")).toBe("post");
    expect(form.getAttribute("action")).toBe("/admin/users");
  });

  it("renders through a given form component", () => {
    const Custom = vi.fn((props: FormHTMLAttributes<HTMLFormElement>) => <form aria-label="custom" {...props} />);
    renderWithI18n(<FormBuilder schema={nameSchema} fields={nameField} as={Custom} />);
    expect(screen.getByRole("form", { name: "custom" })).toBeTruthy();
    expect(Custom).toHaveBeenCalled();
  });

  it("search: has Search and Reset, and Reset clears the fields and errors", async () => {
    const onReset = vi.fn();
    const schema = z.object({ name: z.string().min(3, "At least 3 characters").optional(), kind: z.string().optional() });
    renderWithI18n(
      <FormBuilder
        schema={schema}
        layout="search"
        onReset={onReset}
        fields={[...nameField, { name: "kind", label: "Kind", type: "select", options: [{ label: "Admin", value: "admin" }] }]}
      />,
    );
    const input = screen.getByRole("textbox", { name: "Account" });
    await userEvent.type(input, "ab");
    await userEvent.selectOptions(screen.getByRole("combobox", { name: "Kind" }), "admin");
    expect(screen.getByRole("alert").textContent).toBe("At least 3 characters");
    expect(screen.getByRole("button", { name: "Search" }).getAttribute("type")).toBe("submit");
    await userEvent.click(screen.getByRole("button", { name: "Reset" }));
    expect((screen.getByRole("textbox", { name: "Account" }) as HTMLInputElement).value).toBe("");
    expect((screen.getByRole("combobox", { name: "Kind" }) as HTMLSelectElement).value).toBe("");
    expect(screen.queryByRole("alert")).toBeNull();
    expect(onReset).toHaveBeenCalledTimes(1);
  });

  it("search buttons speak Chinese", () => {
    renderWithI18n(<FormBuilder schema={nameSchema} fields={nameField} layout="search" />, { lang: "zh" });
    expect(screen.getByRole("button", { name: "搜索" })).toBeTruthy();
    expect(screen.getByRole("button", { name: "重置" })).toBeTruthy();
  });
});

describe("FormBuilder field types", () => {
  const options = [
    { label: "Red", value: "red" },
    { label: "Blue", value: "blue" },
  ];
  const fields: FormField[] = [
    { name: "input", label: "Input", type: "input" },
    { name: "password", label: "Password", type: "password" },
    { name: "number", label: "Number", type: "inputNumber" },
    { name: "positive", label: "Positive", type: "positive" },
    { name: "select", label: "Select", type: "select", options },
    { name: "switch", label: "Switch", type: "switch" },
    { name: "date", label: "Date", type: "datePicker" },
    { name: "range", label: "Range", type: "rangePicker" },
    { name: "radio", label: "Radio", type: "radioGroup", options },
    { name: "check", label: "Check", type: "checkbox" },
    { name: "checks", label: "Checks", type: "checkboxGroup", options },
    { name: "text", label: "Text", type: "textarea" },
    { name: "time", label: "Time", type: "timePicker" },
    { name: "custom", label: "Custom", type: "custom", render: ({ id, name }) => <input id={id} name={name} type="color" /> },
  ];

  it("renders an accessible control named by its label for every type", () => {
    renderWithI18n(<FormBuilder schema={z.object({})} fields={fields} />);
    expect(screen.getByRole("textbox", { name: "Input" })).toBeTruthy();
    expect(screen.getByLabelText("Password").getAttribute("type")).toBe("password");
    expect(screen.getByRole("spinbutton", { name: "Number" })).toBeTruthy();
    expect(screen.getByRole("textbox", { name: "Positive" }).getAttribute("inputmode")).toBe("numeric");
    const select = screen.getByRole("combobox", { name: "Select" });
    expect(within(select).getAllByRole("option").map((o) => o.textContent)).toEqual(["Please select", "Red", "Blue"]);
    expect(screen.getByRole("switch", { name: "Switch" })).toBeTruthy();
    expect(screen.getByLabelText("Date").getAttribute("type")).toBe("date");
    const range = screen.getByRole("group", { name: "Range" });
    expect(within(range).getByLabelText("Start date").getAttribute("name")).toBe("range.start");
    expect(within(range).getByLabelText("End date").getAttribute("name")).toBe("range.end");
    const radios = screen.getByRole("radiogroup", { name: "Radio" });
    expect(within(radios).getAllByRole("radio").map((r) => r.getAttribute("value"))).toEqual(["red", "blue"]);
    expect(screen.getByRole("checkbox", { name: "Check" })).toBeTruthy();
    const checks = screen.getByRole("group", { name: "Checks" });
    expect(within(checks).getByRole("checkbox", { name: "Blue" }).getAttribute("name")).toBe("checks");
    expect(screen.getByRole("textbox", { name: "Text" }).tagName).toBe("TEXTAREA");
    expect(screen.getByLabelText("Time").getAttribute("type")).toBe("time");
    expect(screen.getByLabelText("Custom").getAttribute("type")).toBe("color");
  });

  it("positive keeps only digits", async () => {
    renderWithI18n(<FormBuilder schema={z.object({})} fields={fields} />);
    const positive = screen.getByRole("textbox", { name: "Positive" }) as HTMLInputElement;
    await userEvent.type(positive, "1a2-3.");
    expect(positive.value).toBe("123");
  });

  it("submits the values of every type, coerced by the schema", async () => {
    const onSubmit = vi.fn((event: FormEvent, _value: unknown) => event.preventDefault());
    const schema = z.object({
      input: z.string(),
      number: z.number(),
      positive: z.string(),
      select: z.string(),
      switch: z.boolean(),
      range: z.object({ start: z.string(), end: z.string() }),
      radio: z.string(),
      checks: z.array(z.string()),
    });
    renderWithI18n(
      <FormBuilder schema={schema} fields={fields} onSubmit={onSubmit}>
        <button type="submit">Save</button>
      </FormBuilder>,
    );
    await userEvent.type(screen.getByRole("textbox", { name: "Input" }), "hello");
    await userEvent.type(screen.getByRole("spinbutton", { name: "Number" }), "42");
    await userEvent.type(screen.getByRole("textbox", { name: "Positive" }), "7x");
    await userEvent.selectOptions(screen.getByRole("combobox", { name: "Select" }), "blue");
    await userEvent.click(screen.getByRole("switch", { name: "Switch" }));
    await userEvent.type(screen.getByLabelText("Start date"), "2024-01-02");
    await userEvent.type(screen.getByLabelText("End date"), "2024-02-03");
    await userEvent.click(screen.getByRole("radio", { name: "Red" }));
    await userEvent.click(within(screen.getByRole("group", { name: "Checks" })).getByRole("checkbox", { name: "Red" }));
    await userEvent.click(within(screen.getByRole("group", { name: "Checks" })).getByRole("checkbox", { name: "Blue" }));
    await userEvent.click(screen.getByRole("button", { name: "Save" }));
    expect(onSubmit).toHaveBeenCalledTimes(1);
    expect(onSubmit.mock.calls[0]?.[1]).toEqual({
      input: "hello",
      number: 42,
      positive: "7",
      select: "blue",
      switch: true,
      range: { start: "2024-01-02", end: "2024-02-03" },
      radio: "red",
      checks: ["red", "blue"],
    });
  });
});

describe("FormBuilder validation", () => {
  it("validates on every input: an invalid value shows the error, a valid one clears it", async () => {
    renderWithI18n(<FormBuilder schema={nameSchema} fields={nameField} />);
    const input = screen.getByRole("textbox", { name: "Account" });
    await userEvent.type(input, "a");
    expect(screen.getByRole("alert").textContent).toBe("At least 3 characters");
    expect(input.getAttribute("aria-invalid")).toBe("true");
    expect(input.getAttribute("aria-describedby")).toBe(screen.getByRole("alert").id);
    await userEvent.type(input, "bc");
    expect(screen.queryByRole("alert")).toBeNull();
    expect(input.getAttribute("aria-invalid")).toBeNull();
    await userEvent.type(input, "{backspace}");
    expect(screen.getByRole("alert").textContent).toBe("At least 3 characters");
  });

  const requiredForm = (
    <FormBuilder schema={z.object({ note: z.string().optional() })} fields={[{ name: "note", label: "Note", type: "input", required: true }]}>
      <button type="submit">Save</button>
    </FormBuilder>
  );

  it("a bare required rule shows 'This field is required' when empty", async () => {
    const onSubmit = vi.fn();
    renderWithI18n(requiredForm);
    const input = screen.getByRole("textbox", { name: /Note/ });
    expect(input.hasAttribute("required")).toBe(true);
    await userEvent.type(input, "x{backspace}");
    expect(screen.getByRole("alert").textContent).toBe("This field is required");
    await userEvent.click(screen.getByRole("button", { name: "Save" }));
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it("shows the required message in Chinese", async () => {
    renderWithI18n(requiredForm, { lang: "zh" });
    await userEvent.type(screen.getByRole("textbox", { name: /Note/ }), "x{backspace}");
    expect(screen.getByRole("alert").textContent).toBe("此项为必填项");
  });

  it("shows the required message on submit for an empty required field and blocks the submit", async () => {
    const onSubmit = vi.fn();
    renderWithI18n(
      <FormBuilder schema={z.object({})} fields={[{ name: "kind", label: "Kind", type: "radioGroup", required: true, options: [{ label: "A", value: "a" }] }]} onSubmit={onSubmit}>
        <button type="submit">Save</button>
      </FormBuilder>,
    );
    await userEvent.click(screen.getByRole("button", { name: "Save" }));
    expect(screen.getByRole("alert").textContent).toBe("This field is required");
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it("a required range shows the message when a date is missing", async () => {
    renderWithI18n(
      <FormBuilder schema={z.object({})} fields={[{ name: "period", label: "Period", type: "rangePicker", required: true }]}>
        <button type="submit">Save</button>
      </FormBuilder>,
    );
    await userEvent.type(screen.getByLabelText("Start date"), "2024-01-02");
    await userEvent.click(screen.getByRole("button", { name: "Save" }));
    expect(screen.getByRole("alert").textContent).toBe("This field is required");
    expect(screen.getByRole("group", { name: /Period/ }).getAttribute("aria-describedby")).toBe(screen.getByRole("alert").id);
    await userEvent.type(screen.getByLabelText("End date"), "2024-01-03");
    expect(screen.queryByRole("alert")).toBeNull();
  });

  it("translates a message that is a known key", async () => {
    const schema = z.object({ count: z.string().regex(/^[0-9]{3}$/, "global.no-data") });
    renderWithI18n(<FormBuilder schema={schema} fields={[{ name: "count", label: "Count", type: "input" }]} />, { lang: "zh" });
    await userEvent.type(screen.getByRole("textbox", { name: "Count" }), "1");
    expect(screen.getByRole("alert").textContent).toBe("暂无数据");
  });

  it("shows the errors of the action's lastResult", () => {
    const formData = new FormData();
    formData.set("name", "ab");
    const lastResult = parseFormData(formData, nameSchema).reply();
    renderWithI18n(<FormBuilder schema={nameSchema} fields={nameField} lastResult={lastResult} />);
    expect(screen.getByRole("alert").textContent).toBe("At least 3 characters");
    expect((screen.getByRole("textbox", { name: "Account" }) as HTMLInputElement).value).toBe("ab");
  });

  it("shows a server's form-level error from lastResult", () => {
    const lastResult = parseFormData(new FormData(), z.object({})).reply({ formErrors: ["global.no-data"] });
    renderWithI18n(<FormBuilder schema={nameSchema} fields={nameField} lastResult={lastResult} />);
    expect(screen.getByRole("alert").textContent).toBe("No data");
  });
});

describe("parseFormData", () => {
  it("checks the required names and the schema together", () => {
    const formData = new FormData();
    formData.set("name", "ab");
    const submission = parseFormData(formData, nameSchema, ["note"]);
    expect(submission.status).toBe("error");
    expect(submission.reply().error).toEqual({ note: ["global.field.required"], name: ["At least 3 characters"] });
  });

  it("reads a missing schema field as required and coerces values on success", () => {
    const schema = z.object({ name: z.string(), age: z.number() });
    expect(parseFormData(new FormData(), schema).reply().error).toEqual({ name: ["global.field.required"], age: ["global.field.required"] });
    const formData = new FormData();
    formData.set("name", "Ann");
    formData.set("age", "30");
    const submission = parseFormData(formData, schema);
    expect(submission.status === "success" && submission.value).toEqual({ name: "Ann", age: 30 });
  });
});
