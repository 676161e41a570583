import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { Button, ButtonLink } from "../components/ui/button";
import { Modal } from "../components/ui/modal";
import { NoticeBar } from "../components/ui/notice-bar";
import { useConnectionState, useFileConnection } from "../files/file-server-context";
import { useRootData } from "../root";
import { onClientPrompt, onTransferEvent } from "../transfers/events";
import { formatSize } from "../utils/format";
import { type FileServerHealth, selectNoticeState } from "./notice-state";
import { installersFor, type InstallerPlatform, offeredInstallers } from "./platforms";
import { LocalClientProbe, type LocalClientState } from "./probe.client";
import { MIN_CLIENT_VERSION } from "./protocol";
import { launchUrl } from "../utils/site";

/** Spec section 9: the client prompt is 450 wide. */
export const CLIENT_DIALOG_WIDTH = 450;
/** How long "starting" shows after the user asked for the client before the bar invites again. */
export const START_WINDOW_MS = 30_000;
/** A first connection to the file server that takes longer than one reconnect period counts as lost. */
const FIRST_CONNECT_GRACE_MS = 6000;

type DialogContent = { kind: "start" } | { kind: "overflow"; limit: number } | { kind: "upgrade" } | { kind: "large"; size: number; threshold: number };

/** localStorage: "1" once the user closed the invitation to start the client in this browser. */
export const CLIENT_BAR_DISMISSED_KEY = "ferry.client-bar.dismissed";

/**
 * The user's dismissal of the client invitation, kept per browser. null until read: the bar shows
 * nothing before hydration anyway (the probe has not run), so reading it in an effect never flashes.
 */
function useBarDismissal(): [boolean | null, () => void] {
  const [dismissed, setDismissed] = useState<boolean | null>(null);
  useEffect(() => {
    try {
      setDismissed(window.localStorage.getItem(CLIENT_BAR_DISMISSED_KEY) === "1");
    } catch {
      // Storage blocked: the dismissal lasts for this page only.
      setDismissed(false);
    }
  }, []);
  const dismiss = () => {
    try {
      window.localStorage.setItem(CLIENT_BAR_DISMISSED_KEY, "1");
    } catch {
      // As above.
    }
    setDismissed(true);
  };
  return [dismissed, dismiss];
}

function useLocalClient(ports: readonly number[]): { probe: LocalClientProbe | null; state: LocalClientState | null } {
  const [probe, setProbe] = useState<LocalClientProbe | null>(null);
  const [, setTick] = useState(0);
  const key = ports.join(",");
  useEffect(() => {
    const created = new LocalClientProbe({ ports: key.split(",").filter(Boolean).map(Number), secure: window.location.protocol === "https:" });
    const unsubscribe = created.subscribe(() => setTick((n) => n + 1));
    setProbe(created);
    created.start();
    return () => {
      unsubscribe();
      created.close();
    };
  }, [key]);
  return { probe, state: probe?.state ?? null };
}

function useFileServerHealth(): FileServerHealth {
  const state = useConnectionState(useFileConnection());
  const [wasOpen, setWasOpen] = useState(false);
  const [late, setLate] = useState(false);
  if (state === "open" && !wasOpen) setWasOpen(true);
  useEffect(() => {
    const timer = setTimeout(() => setLate(true), FIRST_CONNECT_GRACE_MS);
    return () => clearTimeout(timer);
  }, []);
  if (state === "open") return "open";
  if (state === "closed" || (state === "connecting" && (wasOpen || late))) return "down";
  return "pending";
}

/**
 * The link that asks the operating system to start the client (spec section 7: urlName, secure
 * flag, host, certSelect), or null when urlName is not a custom scheme. It is a link the user
 * clicks, never a navigation the page starts by itself: a browser answers an app's URL scheme with
 * its own prompt ("Open Ferry?"), and one the page triggered unasked (a hidden frame) left the tab
 * unresponsive under that prompt, so the dialog could not be closed (issue 13, item 2).
 */
function clientLaunchUrl(urlName: string, certSelect: number): string | null {
  return launchUrl(urlName, { secure: window.location.protocol === "https:", hostname: window.location.hostname, certSelect });
}

/**
 * The desktop transfer client's side of every signed-in page: looks for the local client, shows the
 * notice bar's client and connection states, and the client-start / size-overflow dialog.
 * `installers` are the platforms the administrator has an installer for (the engine's
 * /api/service/info): without any, the page does not invite the user to start a client.
 */
export function DesktopClient({ ports, installers }: { ports: readonly number[]; installers: readonly InstallerPlatform[] }) {
  const { t } = useTranslation();
  const root = useRootData();
  const rootRef = useRef(root);
  rootRef.current = root;
  const { probe, state: local } = useLocalClient(ports);
  const fileServer = useFileServerHealth();
  const [starting, setStarting] = useState(false);
  const [dialog, setDialog] = useState<DialogContent | null>(null);
  const [launchLink, setLaunchLink] = useState<string | null>(null);
  const [forBrowser, setForBrowser] = useState<InstallerPlatform[]>([]);
  const platforms = offeredInstallers(forBrowser, installers);
  const [dismissed, dismiss] = useBarDismissal();
  /** The waiting batch's answer while the large-upload question shows: true continues in the browser. */
  const promptAnswer = useRef<((inBrowser: boolean) => void) | null>(null);
  const answerPrompt = (inBrowser: boolean) => {
    promptAnswer.current?.(inBrowser);
    promptAnswer.current = null;
  };
  const closeDialog = () => {
    answerPrompt(false);
    setDialog(null);
  };

  const connected = local?.status === "connected";
  const [wasConnected, setWasConnected] = useState(connected);
  if (wasConnected !== connected) {
    setWasConnected(connected);
    if (connected) {
      setStarting(false);
      // The invitation has done its job; an upgrade offer stays until the user closes it.
      if (dialog && dialog.kind !== "upgrade") closeDialog();
    }
  }

  useEffect(() => {
    setForBrowser(installersFor(navigator.userAgent, navigator.platform));
    const root = rootRef.current;
    const stopPrompt = onClientPrompt(
      (size, threshold) =>
        new Promise<boolean>((resolve) => {
          // A second large batch while the first is still asked about: the first stays in the browser's hands.
          promptAnswer.current?.(true);
          promptAnswer.current = resolve;
          setLaunchLink(root ? clientLaunchUrl(root.site.urlName, root.site.certSelect) : null);
          setDialog({ kind: "large", size, threshold });
        }),
    );
    const stopEvents = onTransferEvent((event) => {
      if (event.type === "size-overflow") setDialog({ kind: "overflow", limit: event.limit });
    });
    return () => {
      stopPrompt();
      stopEvents();
      promptAnswer.current?.(true);
      promptAnswer.current = null;
    };
  }, []);

  useEffect(() => {
    if (!starting) return;
    const timer = setTimeout(() => setStarting(false), START_WINDOW_MS);
    return () => clearTimeout(timer);
  }, [starting]);

  // The last content stays while the dialog fades out.
  const [content, setContent] = useState<DialogContent>({ kind: "start" });
  if (dialog && dialog !== content) setContent(dialog);

  const invite = installers.length > 0 && dismissed === false;
  const notice = selectNoticeState({ local, fileServer, starting, invite, minVersion: MIN_CLIENT_VERSION });

  return (
    <>
      <NoticeBar
        state={notice}
        version={MIN_CLIENT_VERSION}
        onStartClient={() => {
          setLaunchLink(root ? clientLaunchUrl(root.site.urlName, root.site.certSelect) : null);
          setStarting(true);
          setDialog({ kind: "start" });
          probe?.retryNow();
        }}
        onUpgrade={() => setDialog({ kind: "upgrade" })}
        onClose={(closed) => {
          // Closing the invitation is for good in this browser; other news shows again when it changes.
          if (closed === "start-client" || closed === "starting") dismiss();
        }}
      />
      <Modal
        open={dialog !== null}
        onClose={closeDialog}
        width={CLIENT_DIALOG_WIDTH}
        title={t(`client.dialog.${content.kind}.title`)}
        footer={
          <div className="mt-6 flex flex-wrap justify-end gap-2">
            {(content.kind === "start" || content.kind === "large") && launchLink && (
              <ButtonLink
                href={launchLink}
                // Beside "Continue in the browser" (the large-upload question), one button is the main one.
                variant={content.kind === "large" ? "outlined" : "contained"}
                onClick={() => {
                  // The batch is left to the client.
                  answerPrompt(false);
                  setStarting(true);
                  probe?.retryNow();
                }}
              >
                {t("client.dialog.start.open")}
              </ButtonLink>
            )}
            {platforms.map((platform) => (
              <Button
                key={platform}
                onClick={() => {
                  answerPrompt(false);
                  window.location.assign(`/download/${platform}`);
                }}
              >
                {t(`shell.download.${platform}`)}
              </Button>
            ))}
            {content.kind === "large" ? (
              <>
                <Button variant="outlined" onClick={closeDialog}>
                  {t("global.cancel")}
                </Button>
                <Button
                  onClick={() => {
                    answerPrompt(true);
                    setDialog(null);
                  }}
                >
                  {t("client.dialog.large.continue")}
                </Button>
              </>
            ) : (
              <Button variant="outlined" onClick={closeDialog}>
                {t("global.close")}
              </Button>
            )}
          </div>
        }
      >
        <p>
          {content.kind === "overflow"
            ? t("client.dialog.overflow.text", { limit: formatSize(content.limit) })
            : content.kind === "large"
              ? t("client.dialog.large.text", { size: formatSize(content.size), threshold: formatSize(content.threshold) })
              : t(`client.dialog.${content.kind}.text`)}
        </p>
      </Modal>
    </>
  );
}
