import { useFetcher, useRevalidator } from "@remix-run/react";
import { useCallback, useEffect, useState, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { Spinner } from "../../components/ui/spinner";
import { FileBrowser } from "../../files/file-browser";
import { FileServerProvider, type FileServerValue } from "../../files/file-server-context";
import { TransferPanel } from "../../transfers/transfer-panel";
import { sharePermission } from "./permission";

/** What `/share/<id>/socket` answers: how to reach the file server, with the visitor's share token. */
export interface ShareSocket {
  fileServer: FileServerValue;
}

/**
 * The disk view with JavaScript: the file browser in share mode on the file server, reached with
 * the share token (fetched from the socket route after hydration, so the token is never part of
 * the server-rendered page), and the transfer panel. Downloads are counted through the route's
 * action. Until the socket details arrive the loading view shows; if they cannot be had, `fallback`
 * (the plain listing) stays.
 */
export function ShareBrowser({ shareId, kind, allowDownload, fallback }: { shareId: string; kind: "download" | "upload"; allowDownload: boolean; fallback: ReactNode }) {
  const { t } = useTranslation();
  const revalidator = useRevalidator();
  const counter = useFetcher();
  const [socket, setSocket] = useState<ShareSocket | "failed" | null>(null);

  useEffect(() => {
    let live = true;
    fetch(`/share/${encodeURIComponent(shareId)}/socket`, { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(async (response) => {
        if (!live) return;
        if (response.status === 401) return revalidator.revalidate();
        setSocket(response.ok ? ((await response.json()) as ShareSocket) : "failed");
      })
      .catch(() => live && setSocket("failed"));
    return () => {
      live = false;
    };
    // The revalidator's identity changes with its state; only a new link needs a new socket.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [shareId]);

  // The file server refused the token (link cancelled, expired, unbound…): the loader decides the view again.
  const onInvalidToken = useCallback(() => revalidator.revalidate(), [revalidator]);
  const onDownload = useCallback(
    (paths: string[]) => {
      const form = new FormData();
      form.set("intent", "count");
      paths.forEach((path) => form.append("path", path));
      counter.submit(form, { method: "post" });
    },
    [counter],
  );

  if (socket === "failed") return <>{fallback}</>;
  if (!socket) {
    return (
      <div className="flex h-40 items-center justify-center gap-2 text-sm text-gray-600">
        <Spinner size={20} label={t("share.loading")} />
        <span aria-hidden="true">{t("share.loading")}</span>
      </div>
    );
  }
  return (
    <FileServerProvider value={socket.fileServer} onInvalidToken={onInvalidToken}>
      <FileBrowser space="share" groupId={0} permission={sharePermission(kind, allowDownload)} userSyncSwitch={false} onDownload={onDownload} />
      <TransferPanel account={`share:${shareId}`} />
    </FileServerProvider>
  );
}
