import { screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { createRef } from "react";
import { describe, expect, it, vi } from "vitest";
import { renderWithI18n } from "../../test-utils";
import { Button } from "./button";

const classes = (el: HTMLElement) => el.className.split(/\s+/);

describe("Button", () => {
  it("is a type=button labelled by its text, middle (32 px, h-8) contained by default", () => {
    renderWithI18n(<Button>Save</Button>);
    const button = screen.getByRole("button", { name: "Save" });
    expect(button.getAttribute("type")).toBe("button");
    expect(classes(button)).toContain("h-8");
    expect(classes(button)).toContain("bg-primary");
  });

  it.each([
    ["small", "h-6"], // 24 px
    ["middle", "h-8"], // 32 px
    ["large", "h-9"], // 36 px
  ] as const)("size %s has height class %s", (size, height) => {
    renderWithI18n(<Button size={size}>Go</Button>);
    const button = screen.getByRole("button", { name: "Go" });
    expect(classes(button)).toContain(height);
    for (const other of ["h-6", "h-8", "h-9"].filter((h) => h !== height)) expect(classes(button)).not.toContain(other);
  });

  it("draws contained with the primary background, outlined with a primary border, text with neither", () => {
    renderWithI18n(
      <>
        <Button variant="contained">A</Button>
        <Button variant="outlined">B</Button>
        <Button variant="text">C</Button>
      </>,
    );
    const contained = classes(screen.getByRole("button", { name: "A" }));
    const outlined = classes(screen.getByRole("button", { name: "B" }));
    const text = classes(screen.getByRole("button", { name: "C" }));
    expect(contained).toContain("bg-primary");
    expect(outlined).toContain("border-primary");
    expect(outlined).toContain("text-primary");
    expect(outlined).not.toContain("bg-primary");
    expect(text).toContain("text-primary");
    expect(text).not.toContain("bg-primary");
    expect(text).not.toContain("border-primary");
  });

  it("is red, not primary, when danger (the spec's delete type) in every variant", () => {
    renderWithI18n(
      <>
        <Button danger>Delete</Button>
        <Button danger variant="outlined">Remove</Button>
        <Button danger variant="text">Drop</Button>
      </>,
    );
    expect(classes(screen.getByRole("button", { name: "Delete" }))).toContain("bg-red-600");
    for (const name of ["Delete", "Remove", "Drop"]) {
      const list = classes(screen.getByRole("button", { name }));
      expect(list.some((c) => c.includes("red-600")), name).toBe(true);
      expect(list.some((c) => c.includes("primary") && !c.startsWith("focus-visible:")), name).toBe(false);
    }
  });

  it("calls onClick when clicked", async () => {
    const onClick = vi.fn();
    renderWithI18n(<Button onClick={onClick}>Save</Button>);
    await userEvent.click(screen.getByRole("button", { name: "Save" }));
    expect(onClick).toHaveBeenCalledTimes(1);
  });

  it("does nothing when disabled", async () => {
    const onClick = vi.fn();
    renderWithI18n(<Button disabled onClick={onClick}>Save</Button>);
    const button = screen.getByRole("button", { name: "Save" }) as HTMLButtonElement;
    expect(button.disabled).toBe(true);
    await userEvent.click(button);
    expect(onClick).not.toHaveBeenCalled();
  });

  it("while loading shows a spinner, sets aria-busy and ignores clicks and form submits", async () => {
    const onClick = vi.fn();
    const onSubmit = vi.fn((e: { preventDefault: () => void }) => e.preventDefault());
    renderWithI18n(
      <form onSubmit={onSubmit}>
        <Button type="submit" loading onClick={onClick}>
          Save
        </Button>
      </form>,
    );
    const button = screen.getByRole("button", { name: "Save" });
    expect(button.getAttribute("aria-busy")).toBe("true");
    expect(button.querySelector("svg.animate-spin")).not.toBeNull();
    await userEvent.click(button);
    expect(onClick).not.toHaveBeenCalled();
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it("has no spinner or aria-busy when not loading", () => {
    renderWithI18n(<Button>Save</Button>);
    const button = screen.getByRole("button", { name: "Save" });
    expect(button.hasAttribute("aria-busy")).toBe(false);
    expect(button.querySelector("svg")).toBeNull();
  });

  it("forwards the ref and other button props, and takes a submit type", async () => {
    const ref = createRef<HTMLButtonElement>();
    const onSubmit = vi.fn((e: { preventDefault: () => void }) => e.preventDefault());
    renderWithI18n(
      <form onSubmit={onSubmit}>
        <Button ref={ref} type="submit" name="intent" value="save" aria-label="Save the file" className="w-full">
          OK
        </Button>
      </form>,
    );
    const button = screen.getByRole("button", { name: "Save the file" });
    expect(ref.current).toBe(button);
    expect(button.getAttribute("name")).toBe("intent");
    expect(button.getAttribute("value")).toBe("save");
    expect(classes(button)).toContain("w-full");
    await userEvent.click(button);
    expect(onSubmit).toHaveBeenCalledTimes(1);
  });

  it.each([
    ["contained", false],
    ["contained", true],
    ["outlined", false],
    ["outlined", true],
    ["text", false],
    ["text", true],
  ] as const)("%s (danger %s) darkens on hover instead of fading: the text keeps its contrast", (variant, danger) => {
    renderWithI18n(
      <Button variant={variant} danger={danger}>
        Go
      </Button>,
    );
    const hover = classes(screen.getByRole("button", { name: "Go" })).filter((c) => c.startsWith("hover:"));
    expect(hover.some((c) => c.includes("opacity"))).toBe(false);
    expect(hover.some((c) => /^hover:(bg|text)-(primary-dark|red-700)$/.test(c))).toBe(true);
  });
});
