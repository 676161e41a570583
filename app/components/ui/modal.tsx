import { Button, ButtonLink } from "./button";
import { Dialog, DialogBackdrop, DialogPanel, DialogTitle } from "@headlessui/react";
import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useId,
  useMemo,
  useRef,
  useState,
  type MouseEvent,
  type ReactNode,
} from "react";
import { useTranslation } from "react-i18next";

/** Spec, admin document section 9 ("Shared kit constants"). */
export const MODAL_WIDTH = 420;
export const MODAL_Z_INDEX = 10;
export const MODAL_OPEN_DELAY_MS = 100;
export const MODAL_CLOSE_DELAY_MS = 200;

export type ModalProps = {
  open: boolean;
  /** Called for Cancel, the close button, Escape, a backdrop click and after a successful confirm. */
  onClose: () => void;
  /** Runs on Confirm; the button shows busy while a returned promise runs. Returning (or resolving to) false, or throwing, keeps the modal open. */
  onConfirm?: () => void | boolean | Promise<void | boolean>;
  /** Called once the close delay is over and the content has left the DOM. */
  afterClose?: () => void;
  title?: ReactNode;
  children?: ReactNode;
  width?: number;
  /** Confirm becomes a red Delete button. */
  danger?: boolean;
  /** A single Confirm button, no Cancel (e.g. the non-closable logout notice). */
  okOnly?: boolean;
  /** false hides the close button and ignores Escape and backdrop clicks. */
  closable?: boolean;
  closeOnBackdrop?: boolean;
  confirmDisabled?: boolean;
  /** The confirm button's label (default global.confirm, or global.confirm.delete when danger). */
  confirmLabel?: ReactNode;
  /** Replaces the Cancel/Confirm footer; null renders no footer. */
  footer?: ReactNode;
};

type Phase = "closed" | "opening" | "open" | "closing";

/*
 * Headless UI scopes Escape to the dialog tree it belongs to, but our modals are siblings (named
 * modals, a confirm above an edit dialog…). One shared stack decides which one hears Escape: the
 * last one opened, even when it is not closable — Escape must never fall through to the one below.
 */
const escapeStack: { id: string; onEscape: () => void }[] = [];

function onDocumentKeyDown(event: KeyboardEvent) {
  if (event.key !== "Escape") return;
  const top = escapeStack[escapeStack.length - 1];
  if (!top) return;
  event.preventDefault();
  top.onEscape();
}

function pushEscape(id: string, onEscape: () => void) {
  if (escapeStack.length === 0) document.addEventListener("keydown", onDocumentKeyDown);
  escapeStack.push({ id, onEscape });
  return () => {
    const index = escapeStack.findIndex((entry) => entry.id === id);
    if (index >= 0) escapeStack.splice(index, 1);
    if (escapeStack.length === 0) document.removeEventListener("keydown", onDocumentKeyDown);
  };
}

export function Modal({
  open,
  onClose,
  onConfirm,
  afterClose,
  title,
  children,
  width = MODAL_WIDTH,
  danger = false,
  okOnly = false,
  closable = true,
  closeOnBackdrop = true,
  confirmLabel,
  confirmDisabled = false,
  footer,
}: ModalProps) {
  const { t } = useTranslation();
  const id = useId();
  const [phase, setPhase] = useState<Phase>("closed");
  const [busy, setBusy] = useState(false);
  const panelRef = useRef<HTMLDivElement>(null);
  const latest = useRef({ onClose, afterClose, closable, phase });
  useEffect(() => {
    latest.current = { onClose, afterClose, closable, phase };
  });

  /**
   * What had the focus when the modal opened. Headless UI gives the focus back to the last element
   * clicked or focused, which is not always the opener: the Upload button clicks a hidden file input,
   * and focusing that fails, leaving the focus on the page's body.
   */
  const opener = useRef<HTMLElement | null>(null);
  /**
   * Set when the modal closes: `afterClose` runs once the closed modal is gone from the page, not
   * when its fade ends. Until React has removed it, Headless UI keeps the rest of the page inert, and
   * focusing a field there (the expired notice's account field) silently fails if the browser paints
   * before React renders.
   */
  const closed = useRef(false);

  useEffect(() => {
    const current = latest.current.phase;
    if (open) {
      if (current === "open") return;
      if (current === "closing") return setPhase("open");
      const active = document.activeElement;
      opener.current = active instanceof HTMLElement && active !== document.body ? active : null;
      setPhase("opening");
      const timer = setTimeout(() => setPhase("open"), MODAL_OPEN_DELAY_MS);
      return () => clearTimeout(timer);
    }
    if (current === "closed") return;
    if (current === "opening") {
      // Closed before it ever showed: nothing to fade out.
      closed.current = true;
      setPhase("closed");
      return;
    }
    setPhase("closing");
    const timer = setTimeout(() => {
      closed.current = true;
      setPhase("closed");
    }, MODAL_CLOSE_DELAY_MS);
    return () => clearTimeout(timer);
  }, [open]);

  useEffect(() => {
    if (phase !== "closed" || !closed.current) return;
    closed.current = false;
    latest.current.afterClose?.();
  }, [phase]);

  useEffect(() => {
    if (phase !== "closed" || !opener.current) return;
    const target = opener.current;
    opener.current = null;
    // After Headless UI's own restore: only when it left the focus nowhere.
    const frame = requestAnimationFrame(() => {
      const active = document.activeElement;
      if ((!active || active === document.body) && target.isConnected) target.focus();
    });
    return () => cancelAnimationFrame(frame);
  }, [phase]);

  useEffect(() => {
    if (phase !== "open") return;
    return pushEscape(id, () => {
      if (latest.current.closable) latest.current.onClose();
    });
  }, [phase, id]);

  if (phase === "closed" || phase === "opening") return null;
  const closing = phase === "closing";

  async function confirm() {
    if (!onConfirm) return onClose();
    let result: ReturnType<NonNullable<ModalProps["onConfirm"]>>;
    try {
      result = onConfirm();
      if (result instanceof Promise) {
        setBusy(true);
        result = await result;
      }
    } catch {
      // The caller reports its own failure (usually with a toast); the modal just stays open.
      return;
    } finally {
      setBusy(false);
    }
    if (result !== false) onClose();
  }

  function onRootClick(event: MouseEvent) {
    if (!closable || !closeOnBackdrop || closing) return;
    if (panelRef.current?.contains(event.target as Node)) return;
    onClose();
  }

  return (
    <Dialog
      open
      // Escape and backdrop clicks are handled above, so that only the topmost modal reacts.
      onClose={() => {}}
      onClick={onRootClick}
      style={{ zIndex: MODAL_Z_INDEX }}
      className={`fixed inset-0 flex items-center justify-center p-4 transition-opacity duration-200 ${closing ? "pointer-events-none opacity-0" : "opacity-100"}`}
    >
      <DialogBackdrop className="fixed inset-0 bg-black/45" />
      <DialogPanel ref={panelRef} style={{ width, maxWidth: "100%" }} className="relative rounded-lg bg-white p-6 shadow-xl">
        <DialogTitle className="pr-8 text-base font-semibold text-gray-900">{title ?? t("global.tips")}</DialogTitle>
        {closable && (
          <button
            type="button"
            aria-label={t("global.close")}
            onClick={onClose}
            className="absolute right-4 top-4 flex h-7 w-7 items-center justify-center rounded text-gray-500 hover:bg-gray-100 hover:text-gray-800"
          >
            <svg aria-hidden="true" viewBox="0 0 16 16" className="h-4 w-4" fill="none" stroke="currentColor" strokeWidth="1.5">
              <path d="M4 4l8 8M12 4l-8 8" />
            </svg>
          </button>
        )}
        <div className="mt-4 text-sm text-gray-700">{children}</div>
        {footer !== undefined ? (
          footer
        ) : (
          <DialogFooter
            className="mt-6"
            onCancel={okOnly ? undefined : onClose}
            onConfirm={() => void confirm()}
            busy={busy}
            danger={danger}
            disabled={confirmDisabled}
            confirmLabel={confirmLabel}
          />
        )}
      </DialogPanel>
    </Dialog>
  );
}

export type DialogFooterProps = {
  /** Cancel as a button calling this (none when neither this nor cancelHref is given). */
  onCancel?: () => void;
  /** Cancel as a link (a page without JavaScript leaves its form this way). */
  cancelHref?: string;
  cancelLabel?: ReactNode;
  /** The confirm button's click; without it the button submits its form. */
  onConfirm?: () => void;
  confirmLabel?: ReactNode;
  busy?: boolean;
  danger?: boolean;
  disabled?: boolean;
  className?: string;
};

/**
 * A dialog's button row: Cancel, then Confirm (red Delete when danger), right-aligned. The modal's
 * own footer, and the footer of a form inside a modal with footer={null} (Confirm submits the form).
 */
export function DialogFooter({ onCancel, cancelHref, cancelLabel, onConfirm, confirmLabel, busy = false, danger = false, disabled = false, className = "" }: DialogFooterProps) {
  const { t } = useTranslation();
  const cancel = cancelLabel ?? t("global.cancel");
  return (
    <div className={`flex justify-end gap-2 ${className}`}>
      {cancelHref !== undefined ? (
        <ButtonLink href={cancelHref} variant="outlined">
          {cancel}
        </ButtonLink>
      ) : (
        onCancel && (
          <Button variant="outlined" onClick={onCancel}>
            {cancel}
          </Button>
        )
      )}
      <Button type={onConfirm ? "button" : "submit"} danger={danger} loading={busy} disabled={disabled} onClick={onConfirm}>
        {confirmLabel ?? (danger ? t("global.confirm.delete") : t("global.confirm"))}
      </Button>
    </div>
  );
}

/* Named modals: at most one open modal per name, removed from the registry once closed. */

export type NamedModalProps = Omit<ModalProps, "open" | "onClose" | "afterClose"> & { onClose?: () => void };

type ModalsApi = {
  /** Opens the modal unless one with this name is already open (or still closing); returns whether it opened. */
  open: (name: string, props: NamedModalProps) => boolean;
  /** Closes it; it leaves the registry once the close delay is over. */
  close: (name: string) => void;
  isOpen: (name: string) => boolean;
};

const ModalsContext = createContext<ModalsApi | null>(null);

type Entry = { name: string; open: boolean; props: NamedModalProps };

export function ModalProvider({ children }: { children: ReactNode }) {
  const [entries, setEntries] = useState<Entry[]>([]);
  // Mirrors the registry synchronously, so two open() calls in one tick still open only one.
  const names = useRef(new Set<string>());

  const close = useCallback((name: string) => {
    setEntries((list) => list.map((e) => (e.name === name ? { ...e, open: false } : e)));
  }, []);

  const remove = useCallback((name: string) => {
    names.current.delete(name);
    setEntries((list) => list.filter((e) => e.name !== name));
  }, []);

  const api = useMemo<ModalsApi>(
    () => ({
      open(name, props) {
        if (names.current.has(name)) return false;
        names.current.add(name);
        setEntries((list) => [...list, { name, open: true, props }]);
        return true;
      },
      close,
      isOpen: (name) => names.current.has(name),
    }),
    [close],
  );

  return (
    <ModalsContext.Provider value={api}>
      {children}
      {entries.map(({ name, open, props: { onClose, ...props } }) => (
        <Modal
          key={name}
          {...props}
          open={open}
          onClose={() => {
            onClose?.();
            close(name);
          }}
          afterClose={() => remove(name)}
        />
      ))}
    </ModalsContext.Provider>
  );
}

export function useModals(): ModalsApi {
  const api = useContext(ModalsContext);
  if (!api) throw new Error("useModals must be used inside <ModalProvider>");
  return api;
}
