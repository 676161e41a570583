import { useState } from "react";
import { useTranslation } from "react-i18next";
import { Button } from "./button";
import { cn } from "./cn";
import { CloseIcon } from "./icons";

export type NoticeState = "start-client" | "starting" | "update" | "low-version" | "disconnect";

export type NoticeBarProps = {
  /** The one state to show; null or undefined shows nothing. */
  state?: NoticeState | null;
  /** The minimum client version, for the low-version text. */
  version?: string;
  onStartClient?: () => void;
  onUpgrade?: () => void;
  /** Called when the user closes the bar, with the state it showed (e.g. to remember a dismissal). */
  onClose?: (state: NoticeState) => void;
  className?: string;
};

const messages = {
  "start-client": "app.notice.start-client",
  starting: "app.notice.starting",
  update: "app.notice.update",
  "low-version": "app.notice.low-version",
  disconnect: "app.notice.disconnect",
} as const satisfies Record<NoticeState, string>;

/**
 * The bar above every page telling the user about the transfer client or the server connection.
 * Closing it hides it until the state changes (a new state is news worth showing again).
 */
export function NoticeBar({ state, version, onStartClient, onUpgrade, onClose, className }: NoticeBarProps) {
  const { t } = useTranslation();
  const [closed, setClosed] = useState(false);
  const [shownState, setShownState] = useState(state);
  if (shownState !== state) {
    // Adjusting state while rendering (React's pattern for "reset when a prop changes").
    setShownState(state);
    setClosed(false);
  }
  if (!state || (closed && shownState === state)) return null;
  const disconnect = state === "disconnect";
  return (
    <div
      role={disconnect ? "alert" : "status"}
      className={cn(
        "flex min-h-10 items-center gap-3 border-b px-4 py-2 text-sm",
        disconnect ? "border-red-200 bg-red-50 text-red-700" : "border-orange-200 bg-orange-50 text-gray-800",
        className,
      )}
    >
      <p className="flex-1">{t(messages[state], { version })}</p>
      {/* Still offered while starting: the user may ask again, and the client dialog gives focus back to it. */}
      {(state === "start-client" || state === "starting") && (
        <Button size="small" onClick={onStartClient}>
          {t("app.notice.start-client.button")}
        </Button>
      )}
      {(state === "update" || state === "low-version") && (
        <Button size="small" onClick={onUpgrade}>
          {t("app.notice.upgrade")}
        </Button>
      )}
      <button
        type="button"
        aria-label={t("global.close")}
        onClick={() => {
          setClosed(true);
          onClose?.(state);
        }}
        className="rounded p-1 text-gray-500 hover:bg-black/5 hover:text-gray-800 focus-visible:outline focus-visible:outline-2 focus-visible:outline-primary"
      >
        <CloseIcon size={14} />
      </button>
    </div>
  );
}
