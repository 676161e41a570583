import { act, fireEvent, screen } from "@testing-library/react";
import { useState } from "react";
import { describe, expect, it, vi } from "vitest";
import { advance, renderWithI18n, fakeTimersPerTest } from "../../test-utils";
import { DialogFooter, Modal, ModalProvider, useModals, type ModalProps } from "./modal";

fakeTimersPerTest();

/** Renders an open modal and waits out the open delay. */
function renderOpen(props: Partial<ModalProps> = {}, lang: "en" | "zh" = "en") {
  const onClose = vi.fn();
  const view = renderWithI18n(
    <Modal open onClose={onClose} {...props}>
      Body text
    </Modal>,
    { lang },
  );
  advance(100);
  return { onClose, ...view };
}

function pressEscape() {
  act(() => {
    fireEvent.keyDown(document.activeElement ?? document.body, { key: "Escape" });
  });
}

/** A modal whose parent owns `open`, as a page would. */
function Controlled({ initiallyOpen = true, ...props }: Partial<ModalProps> & { initiallyOpen?: boolean }) {
  const [open, setOpen] = useState(initiallyOpen);
  return (
    <>
      <button type="button" onClick={() => setOpen(true)}>
        Open it
      </button>
      <Modal {...props} open={open} onClose={() => setOpen(false)}>
        Body text
      </Modal>
    </>
  );
}

describe("Modal", () => {
  it("appears only after the 100 ms open delay", () => {
    renderWithI18n(
      <Modal open onClose={() => {}}>
        Body text
      </Modal>,
    );
    advance(99);
    expect(screen.queryByRole("dialog")).toBeNull();
    advance(1);
    expect(screen.getByRole("dialog", { name: "Tips" })).toBeTruthy();
  });

  it("keeps its content for the 200 ms close delay, then removes it from the DOM", () => {
    const afterClose = vi.fn();
    renderWithI18n(<Controlled afterClose={afterClose} />);
    advance(100);
    fireEvent.click(screen.getByRole("button", { name: "Cancel" }));
    advance(199);
    expect(screen.queryByText("Body text")).not.toBeNull();
    expect(afterClose).not.toHaveBeenCalled();
    advance(1);
    expect(screen.queryByText("Body text")).toBeNull();
    expect(afterClose).toHaveBeenCalledOnce();
  });

  it("is 420 px wide by default, takes a width prop, and sits at z-index 10", () => {
    const { unmount } = renderOpen();
    const dialog = screen.getByRole("dialog", { name: "Tips" });
    expect(dialog.style.zIndex).toBe("10");
    // The title is a direct child of the panel.
    expect(screen.getByRole("heading", { name: "Tips" }).parentElement?.style.width).toBe("420px");
    unmount();
    renderOpen({ width: 700 });
    expect(screen.getByRole("heading", { name: "Tips" }).parentElement?.style.width).toBe("700px");
  });

  it("is named by its title", () => {
    renderOpen({ title: "Rename" });
    expect(screen.getByRole("dialog", { name: "Rename" })).toBeTruthy();
    expect(screen.getByRole("heading", { name: "Rename" })).toBeTruthy();
  });

  it("closes on a backdrop click by default, but not on a click inside", () => {
    const { onClose } = renderOpen();
    fireEvent.click(screen.getByText("Body text"));
    expect(onClose).not.toHaveBeenCalled();
    fireEvent.click(screen.getByRole("dialog"));
    expect(onClose).toHaveBeenCalledOnce();
  });

  it("ignores backdrop clicks when closeOnBackdrop is false", () => {
    const { onClose } = renderOpen({ closeOnBackdrop: false });
    fireEvent.click(screen.getByRole("dialog"));
    expect(onClose).not.toHaveBeenCalled();
    pressEscape();
    expect(onClose).toHaveBeenCalledOnce();
  });

  it("closes on Escape and with the close button", () => {
    const { onClose } = renderOpen();
    pressEscape();
    expect(onClose).toHaveBeenCalledTimes(1);
    fireEvent.click(screen.getByRole("button", { name: "Close" }));
    expect(onClose).toHaveBeenCalledTimes(2);
  });

  it("shows Cancel and Confirm; Cancel closes, Confirm runs onConfirm then closes", () => {
    const onConfirm = vi.fn();
    const { onClose } = renderOpen({ onConfirm });
    fireEvent.click(screen.getByRole("button", { name: "Cancel" }));
    expect(onClose).toHaveBeenCalledTimes(1);
    expect(onConfirm).not.toHaveBeenCalled();
    fireEvent.click(screen.getByRole("button", { name: "Confirm" }));
    expect(onConfirm).toHaveBeenCalledOnce();
    expect(onClose).toHaveBeenCalledTimes(2);
  });

  it("stays open when onConfirm returns false", () => {
    const { onClose } = renderOpen({ onConfirm: () => false });
    fireEvent.click(screen.getByRole("button", { name: "Confirm" }));
    expect(onClose).not.toHaveBeenCalled();
  });

  it("shows Delete instead of Confirm when danger is set", () => {
    renderOpen({ danger: true });
    expect(screen.getByRole("button", { name: "Delete" })).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Confirm" })).toBeNull();
  });

  it("marks Confirm busy while a returned promise runs", async () => {
    let resolve: (value: boolean) => void = () => {};
    const { onClose } = renderOpen({ onConfirm: () => new Promise<boolean>((r) => (resolve = r)) });
    const confirm = screen.getByRole("button", { name: "Confirm" });
    fireEvent.click(confirm);
    expect(confirm.getAttribute("aria-busy")).toBe("true");
    expect(confirm.getAttribute("aria-disabled")).toBe("true");
    expect(onClose).not.toHaveBeenCalled();
    await act(async () => resolve(true));
    expect(confirm.getAttribute("aria-busy")).toBeNull();
    expect(onClose).toHaveBeenCalledOnce();
  });

  it("stays open when the onConfirm promise rejects", async () => {
    const { onClose } = renderOpen({ onConfirm: () => Promise.reject(new Error("no")) });
    await act(async () => {
      fireEvent.click(screen.getByRole("button", { name: "Confirm" }));
    });
    expect(onClose).not.toHaveBeenCalled();
    expect(screen.getByRole("button", { name: "Confirm" }).getAttribute("aria-busy")).toBeNull();
  });

  it("when not closable: no close button, Escape and backdrop ignored; okOnly shows just Confirm", () => {
    const { onClose } = renderOpen({ closable: false, okOnly: true, children: "Signed out" });
    expect(screen.queryByRole("button", { name: "Close" })).toBeNull();
    expect(screen.queryByRole("button", { name: "Cancel" })).toBeNull();
    pressEscape();
    fireEvent.click(screen.getByRole("dialog"));
    expect(onClose).not.toHaveBeenCalled();
    fireEvent.click(screen.getByRole("button", { name: "Confirm" }));
    expect(onClose).toHaveBeenCalledOnce();
  });

  it("disables Confirm with confirmDisabled", () => {
    renderOpen({ confirmDisabled: true });
    expect((screen.getByRole("button", { name: "Confirm" }) as HTMLButtonElement).disabled).toBe(true);
  });

  it("renders in Chinese", () => {
    renderOpen({ danger: true }, "zh");
    expect(screen.getByRole("dialog", { name: "提示" })).toBeTruthy();
    expect(screen.getByRole("button", { name: "取消" })).toBeTruthy();
    expect(screen.getByRole("button", { name: "删除" })).toBeTruthy();
    expect(screen.getByRole("button", { name: "关闭" })).toBeTruthy();
  });
});

describe("stacked modals", () => {
  function Stack({ topClosable = true }: { topClosable?: boolean }) {
    const [lower, setLower] = useState(true);
    const [upper, setUpper] = useState(false);
    return (
      <>
        <Modal open={lower} onClose={() => setLower(false)} title="Lower">
          <button type="button" onClick={() => setUpper(true)}>
            Open upper
          </button>
        </Modal>
        <Modal open={upper} onClose={() => setUpper(false)} title="Upper" closable={topClosable}>
          Upper body
        </Modal>
      </>
    );
  }

  it("Escape closes only the topmost modal, then the next one", () => {
    renderWithI18n(<Stack />);
    advance(100);
    fireEvent.click(screen.getByRole("button", { name: "Open upper" }));
    advance(100);
    expect(screen.getByRole("heading", { name: "Upper" })).toBeTruthy();
    pressEscape();
    advance(200);
    expect(screen.queryByRole("heading", { name: "Upper" })).toBeNull();
    expect(screen.getByRole("heading", { name: "Lower" })).toBeTruthy();
    pressEscape();
    advance(200);
    expect(screen.queryByRole("heading", { name: "Lower" })).toBeNull();
  });

  it("Escape on a non-closable top modal does not fall through to the one below", () => {
    renderWithI18n(<Stack topClosable={false} />);
    advance(100);
    fireEvent.click(screen.getByRole("button", { name: "Open upper" }));
    advance(100);
    pressEscape();
    advance(200);
    expect(screen.getByRole("heading", { name: "Upper" })).toBeTruthy();
    // Still mounted (Headless UI hides the lower one from assistive technology while the upper is open).
    expect(screen.getByRole("heading", { name: "Lower", hidden: true })).toBeTruthy();
  });
});

describe("named modals", () => {
  function Opener({ onOpened }: { onOpened: (opened: boolean) => void }) {
    const modals = useModals();
    return (
      <>
        <button type="button" onClick={() => onOpened(modals.open("logout", { title: "Signed out", children: "Please sign in" }))}>
          Open logout
        </button>
        <button type="button" onClick={() => modals.close("logout")}>
          Close logout
        </button>
      </>
    );
  }

  it("opens a name only once while it is open, and again after it was closed and removed", () => {
    const opened = vi.fn();
    renderWithI18n(
      <ModalProvider>
        <Opener onOpened={opened} />
      </ModalProvider>,
    );
    fireEvent.click(screen.getByRole("button", { name: "Open logout" }));
    fireEvent.click(screen.getByRole("button", { name: "Open logout" }));
    advance(100);
    expect(screen.getAllByRole("dialog", { name: "Signed out" })).toHaveLength(1);
    expect(opened.mock.calls).toEqual([[true], [false]]);

    fireEvent.click(screen.getByRole("button", { name: "Close logout", hidden: true }));
    advance(199);
    // Still in the registry while it fades out.
    fireEvent.click(screen.getByRole("button", { name: "Open logout", hidden: true }));
    expect(opened).toHaveBeenLastCalledWith(false);
    advance(1);
    expect(screen.queryByRole("dialog")).toBeNull();

    fireEvent.click(screen.getByRole("button", { name: "Open logout" }));
    expect(opened).toHaveBeenLastCalledWith(true);
    advance(100);
    expect(screen.getByRole("dialog", { name: "Signed out" })).toBeTruthy();
  });

  it("is removed from the registry when the person closes it", () => {
    const opened = vi.fn();
    renderWithI18n(
      <ModalProvider>
        <Opener onOpened={opened} />
      </ModalProvider>,
    );
    fireEvent.click(screen.getByRole("button", { name: "Open logout" }));
    advance(100);
    fireEvent.click(screen.getByRole("button", { name: "Cancel" }));
    advance(200);
    expect(screen.queryByRole("dialog")).toBeNull();
    fireEvent.click(screen.getByRole("button", { name: "Open logout" }));
    expect(opened).toHaveBeenLastCalledWith(true);
  });

  it("useModals outside the provider throws", () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    expect(() => renderWithI18n(<Opener onOpened={() => {}} />)).toThrow(/ModalProvider/);
  });
});

describe("Modal confirm label", () => {
  it("can name the single button of an ok-only notice", () => {
    renderWithI18n(
      <Modal open onClose={() => {}} okOnly closable={false} confirmLabel="OK" title="Signed out">
        Bye
      </Modal>,
    );
    advance(100);
    expect(screen.getAllByRole("button").map((b) => b.textContent)).toEqual(["OK"]);
  });
});

describe("DialogFooter", () => {
  it("inside a form: Cancel calls onCancel, Confirm submits the form", () => {
    const onCancel = vi.fn();
    const onSubmit = vi.fn((event: { preventDefault: () => void }) => event.preventDefault());
    renderWithI18n(
      <form onSubmit={onSubmit}>
        <DialogFooter onCancel={onCancel} />
      </form>,
    );
    fireEvent.click(screen.getByRole("button", { name: "Cancel" }));
    expect(onCancel).toHaveBeenCalledTimes(1);
    expect(onSubmit).not.toHaveBeenCalled();
    fireEvent.click(screen.getByRole("button", { name: "Confirm" }));
    expect(onSubmit).toHaveBeenCalledTimes(1);
  });

  it("without JavaScript's help: Cancel as a link (cancelHref); in Chinese", () => {
    renderWithI18n(<DialogFooter cancelHref="/admin/groups?page=2" />, { lang: "zh" });
    expect(screen.getByRole("link", { name: "取消" }).getAttribute("href")).toBe("/admin/groups?page=2");
    expect(screen.getByRole("button", { name: "确定" }).getAttribute("type")).toBe("submit");
  });

  it("with onConfirm the confirm button is a plain button; danger makes it Delete", () => {
    const onConfirm = vi.fn();
    renderWithI18n(<DialogFooter danger onConfirm={onConfirm} />);
    expect(screen.queryByRole("button", { name: "Cancel" })).toBeNull();
    const confirm = screen.getByRole("button", { name: "Delete" });
    expect(confirm.getAttribute("type")).toBe("button");
    fireEvent.click(confirm);
    expect(onConfirm).toHaveBeenCalledTimes(1);
  });
});
