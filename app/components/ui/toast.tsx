import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { useTranslation } from "react-i18next";

/** Spec, admin document section 9: toasts last 3 s, a loading toast stays until removed, 20 px from the top. */
export const TOAST_DURATION_MS = 3000;
export const TOAST_TOP_PX = 20;

export type ToastType = "info" | "success" | "warning" | "error" | "loading";
export type ToastOptions = {
  /** Milliseconds until it disappears; 0 keeps it until `remove`. */
  duration?: number;
};

type ShowToast = (message: string, options?: ToastOptions) => string;

export type ToastApi = Record<ToastType, ShowToast> & { remove: (id: string) => void };

type Item = { id: string; type: ToastType; message: string };

const ToastContext = createContext<ToastApi | null>(null);

const looks: Record<ToastType, { role: "status" | "alert"; dot: string }> = {
  info: { role: "status", dot: "bg-blue-500" },
  success: { role: "status", dot: "bg-green-500" },
  loading: { role: "status", dot: "" },
  warning: { role: "alert", dot: "bg-amber-500" },
  error: { role: "alert", dot: "bg-red-500" },
};

function ToastItem({ type, message }: Item) {
  const { t, i18n } = useTranslation();
  const { role, dot } = looks[type];
  return (
    <div role={role} className="pointer-events-auto flex max-w-md items-center gap-2 rounded-md bg-white px-4 py-2 text-sm text-gray-800 shadow-lg">
      {type === "loading" ? (
        <span aria-hidden="true" className="h-3 w-3 shrink-0 animate-spin rounded-full border-2 border-primary border-t-transparent" />
      ) : (
        <span aria-hidden="true" className={`h-2 w-2 shrink-0 rounded-full ${dot}`} />
      )}
      {/* Engine and client messages arrive as keys ("error.1005", "global.server.error") or as plain text. */}
      <span>{i18n.exists(message) ? t(message) : message}</span>
    </div>
  );
}

export function ToastProvider({ children }: { children: ReactNode }) {
  const [items, setItems] = useState<Item[]>([]);
  // Synchronous mirrors, so the same message shown twice in one tick still appears once.
  const visible = useRef(new Map<string, Item>());
  const timers = useRef(new Map<string, ReturnType<typeof setTimeout>>());
  const counter = useRef(0);

  const remove = useCallback((id: string) => {
    const timer = timers.current.get(id);
    if (timer !== undefined) clearTimeout(timer);
    timers.current.delete(id);
    for (const [message, item] of visible.current) if (item.id === id) visible.current.delete(message);
    setItems((list) => list.filter((item) => item.id !== id));
  }, []);

  const api = useMemo<ToastApi>(() => {
    const show =
      (type: ToastType): ShowToast =>
      (message, options = {}) => {
        const existing = visible.current.get(message);
        if (existing) return existing.id;
        const item = { id: `toast-${++counter.current}`, type, message };
        visible.current.set(message, item);
        setItems((list) => [...list, item]);
        const duration = options.duration ?? (type === "loading" ? 0 : TOAST_DURATION_MS);
        if (duration > 0) timers.current.set(item.id, setTimeout(() => remove(item.id), duration));
        return item.id;
      };
    return { info: show("info"), success: show("success"), warning: show("warning"), error: show("error"), loading: show("loading"), remove };
  }, [remove]);

  useEffect(() => {
    const pending = timers.current;
    return () => pending.forEach((timer) => clearTimeout(timer));
  }, []);

  return (
    <ToastContext.Provider value={api}>
      {children}
      <ToastRegion items={items} />
    </ToastContext.Provider>
  );
}

/** Where toasts show: centred, 20 px from the top. */
function ToastRegion({ items }: { items: readonly Item[] }) {
  const { t } = useTranslation();
  if (items.length === 0) return null;
  return (
    <section
      aria-label={t("global.toast.region")}
      style={{ top: TOAST_TOP_PX, left: "50%", transform: "translateX(-50%)" }}
      className="pointer-events-none fixed z-[1000] flex flex-col items-center gap-2"
    >
      {items.map((item) => (
        <ToastItem key={item.id} {...item} />
      ))}
    </section>
  );
}

/**
 * A toast written into the page's HTML, for a page that shows one before (or without) JavaScript:
 * the answer to a plain form post. Once JavaScript runs, render nothing here and show it with
 * `useToast` instead, which times it out.
 */
export function StaticToast({ type, message }: { type: ToastType; message: string }) {
  return <ToastRegion items={[{ id: "toast-static", type, message }]} />;
}

export function useToast(): ToastApi {
  const api = useContext(ToastContext);
  if (!api) throw new Error("useToast must be used inside <ToastProvider>");
  return api;
}
