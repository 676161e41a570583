import { screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useState, type FormEvent } from "react";
import { describe, expect, it, vi } from "vitest";
import { renderWithI18n } from "../../test-utils";
import { readStepMove, Steps } from "./steps";

const STEPS = [
  { key: "general", title: "General", content: <input aria-label="Account" name="account" /> },
  { key: "storage", title: "Storage", content: <input aria-label="Home" name="home" /> },
  { key: "transfer", title: "Transfer", content: <input aria-label="Speed" name="speed" /> },
  { key: "security", title: "Security", content: <input aria-label="Whitelist" name="ip" /> },
];

/** A form that moves as an action would: Back and Next by one, Skip and Finish report the values. */
function Harness({ onDone }: { onDone: (move: string, values: Record<string, FormDataEntryValue>) => void }) {
  const [current, setCurrent] = useState(0);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget, (event.nativeEvent as SubmitEvent).submitter);
    const move = readStepMove(form);
    if (move === "back") setCurrent((c) => c - 1);
    else if (move === "next") setCurrent((c) => c + 1);
    else onDone(move, Object.fromEntries(form));
  };
  return (
    <form onSubmit={submit}>
      <Steps steps={STEPS} current={current} label="Add user" finishLabel="Save" skippable />
    </form>
  );
}

describe("Steps", () => {
  it("shows one step at a time with Back, Next and Skip, and keeps every step's fields in the form", async () => {
    const onDone = vi.fn();
    renderWithI18n(<Harness onDone={onDone} />);
    const list = screen.getByRole("list", { name: "Add user" });
    expect(list.querySelector("[aria-current=step]")?.textContent).toContain("General");
    expect(screen.queryByRole("button", { name: "Back" })).toBeNull();
    expect(screen.queryByRole("button", { name: "Skip" })).toBeNull();
    expect(screen.getByRole("heading", { name: "General" })).toBeTruthy();
    expect(screen.queryByRole("heading", { name: "Storage" })).toBeNull();

    await userEvent.type(screen.getByLabelText("Account"), "alice");
    await userEvent.click(screen.getByRole("button", { name: "Next" }));
    expect(list.querySelector("[aria-current=step]")?.textContent).toContain("Storage");
    // Focus moves to the new step's heading, so the keyboard starts there.
    expect(document.activeElement).toBe(screen.getByRole("heading", { name: "Storage" }));
    expect(screen.getByRole("button", { name: "Back" })).toBeTruthy();

    await userEvent.click(screen.getByRole("button", { name: "Back" }));
    expect(list.querySelector("[aria-current=step]")?.textContent).toContain("General");
    expect((screen.getByLabelText("Account") as HTMLInputElement).value).toBe("alice");

    // Enter in a field goes forward (the form's first submit button is an invisible Next).
    await userEvent.type(screen.getByLabelText("Account"), "{Enter}");
    expect(list.querySelector("[aria-current=step]")?.textContent).toContain("Storage");

    await userEvent.click(screen.getByRole("button", { name: "Skip" }));
    expect(onDone).toHaveBeenCalledWith("skip", expect.objectContaining({ account: "alice", home: "", speed: "", ip: "" }));
  });

  it("ends with the finish button on the last step, reachable by keyboard alone", async () => {
    const onDone = vi.fn();
    renderWithI18n(<Harness onDone={onDone} />);
    for (let i = 0; i < 3; i++) {
      screen.getByRole("button", { name: "Next" }).focus();
      await userEvent.keyboard("{Enter}");
    }
    expect(screen.queryByRole("button", { name: "Next" })).toBeNull();
    expect(screen.queryByRole("button", { name: "Skip" })).toBeNull();
    await userEvent.tab();
    expect(document.activeElement).toBe(screen.getByLabelText("Whitelist"));
    await userEvent.keyboard("10.0.0.1");
    screen.getByRole("button", { name: "Save" }).focus();
    await userEvent.keyboard("{Enter}");
    expect(onDone).toHaveBeenCalledWith("finish", expect.objectContaining({ ip: "10.0.0.1" }));
  });

  it("reads the pressed button of a posted form; anything else is Next", () => {
    const form = new FormData();
    expect(readStepMove(form)).toBe("next");
    form.set("step", "skip");
    expect(readStepMove(form)).toBe("skip");
    form.set("step", "drop-table");
    expect(readStepMove(form)).toBe("next");
  });
});
