import { act, fireEvent, screen } from "@testing-library/react";
import { useState } from "react";
import { describe, expect, it, vi } from "vitest";
import { advance, renderWithI18n, fakeTimersPerTest } from "../../test-utils";
import { EditModal, type EditModalProps, type EditModalResult } from "./edit-modal";

fakeTimersPerTest();

function setup(props: Partial<EditModalProps> = {}, lang: "en" | "zh" = "en") {
  const onClose = vi.fn();
  const onSave = vi.fn<(text: string) => EditModalResult | Promise<EditModalResult>>(() => ({ ok: true }));
  renderWithI18n(<EditModal open onClose={onClose} onSave={onSave} label="Remark" value="old note" {...props} />, { lang });
  advance(100);
  const input = screen.getByLabelText(props.label ?? "Remark") as HTMLInputElement;
  const confirm = () => screen.getByRole("button", { name: lang === "en" ? "Confirm" : "确定" }) as HTMLButtonElement;
  const type = (text: string) => fireEvent.change(input, { target: { value: text } });
  const clickConfirm = async () => {
    await act(async () => {
      fireEvent.click(confirm());
    });
  };
  return { onClose, onSave, input, confirm, type, clickConfirm };
}

describe("EditModal", () => {
  it("shows the current value in a labelled field", () => {
    const { input } = setup();
    expect(input.value).toBe("old note");
  });

  it("disables Confirm while the text is empty or only spaces", () => {
    const { type, confirm } = setup();
    type("");
    expect(confirm().disabled).toBe(true);
    type("   ");
    expect(confirm().disabled).toBe(true);
    type(" x ");
    expect(confirm().disabled).toBe(false);
  });

  it("allows at most 256 characters", () => {
    const { input, type } = setup();
    expect(input.maxLength).toBe(256);
    type("a".repeat(256));
    expect(input.value).toHaveLength(256);
    type("b".repeat(257));
    expect(input.value).toHaveLength(256);
  });

  it("closes without saving when the text did not change", async () => {
    const { onSave, onClose, type, clickConfirm } = setup();
    type("  old note ");
    await clickConfirm();
    expect(onSave).not.toHaveBeenCalled();
    expect(onClose).toHaveBeenCalledOnce();
  });

  it("saves the changed text and closes when the result is ok", async () => {
    const { onSave, onClose, type, clickConfirm } = setup();
    type(" new note ");
    await clickConfirm();
    expect(onSave).toHaveBeenCalledExactlyOnceWith("new note");
    expect(onClose).toHaveBeenCalledOnce();
  });

  it("stays open when the result is not ok", async () => {
    const { onSave, onClose, type, clickConfirm } = setup();
    onSave.mockResolvedValue({ ok: false });
    type("new note");
    await clickConfirm();
    expect(onSave).toHaveBeenCalledOnce();
    expect(onClose).not.toHaveBeenCalled();
  });

  it("shows busy while saving", async () => {
    let finish: (result: EditModalResult) => void = () => {};
    const { onSave, onClose, type, confirm, clickConfirm } = setup();
    onSave.mockReturnValue(new Promise<EditModalResult>((resolve) => (finish = resolve)));
    type("new note");
    await clickConfirm();
    expect(confirm().getAttribute("aria-busy")).toBe("true");
    expect(onClose).not.toHaveBeenCalled();
    await act(async () => finish({ ok: true }));
    expect(onClose).toHaveBeenCalledOnce();
  });

  it("starts from the current value every time it opens", () => {
    function Page() {
      const [open, setOpen] = useState(true);
      return (
        <>
          <button type="button" onClick={() => setOpen(true)}>
            Edit
          </button>
          <EditModal open={open} onClose={() => setOpen(false)} onSave={() => ({ ok: true })} label="Remark" value="one" />
        </>
      );
    }
    renderWithI18n(<Page />);
    advance(100);
    fireEvent.change(screen.getByLabelText("Remark"), { target: { value: "abandoned" } });
    fireEvent.click(screen.getByRole("button", { name: "Cancel" }));
    advance(200);
    fireEvent.click(screen.getByRole("button", { name: "Edit" }));
    advance(100);
    expect((screen.getByLabelText("Remark") as HTMLInputElement).value).toBe("one");
  });

  it("renders in Chinese", () => {
    const { input } = setup({ label: "备注" }, "zh");
    expect(input.value).toBe("old note");
    expect(screen.getByRole("dialog", { name: "提示" })).toBeTruthy();
    expect(screen.getByRole("button", { name: "取消" })).toBeTruthy();
  });
});
