import { useEffect, useId, useState, useSyncExternalStore } from "react";
import { useTranslation } from "react-i18next";
import { Button } from "../components/ui/button";
import { Callout } from "../components/ui/callout";
import { FileIcon, FolderIcon } from "../components/ui/icons";
import { Modal } from "../components/ui/modal";
import { ScriptRequired } from "../components/ui/script-required";
import { Spinner } from "../components/ui/spinner";
import { Switch } from "../components/ui/switch";
import { useToast } from "../components/ui/toast";
import { useFileConnection } from "../files/file-server-context";
import { FolderTree } from "../files/folder-tree";
import { formatSize } from "../utils/format";
import { formatDeviceId } from "./device-id";
import type { IncomingOffer, P2pSession, ReceiverState } from "./peer.client";
import { useP2pSession } from "./use-p2p";

/** Files of an offer listed by name; the rest counted. */
const FILES_SHOWN = 8;
const NO_STATE: ReceiverState = { deviceId: null, error: null, receiving: false, replaced: false, offers: [] };
const noSubscribe = () => () => undefined;

/** The receiver of spec section 2: tips, the allow-receiving switch, this device's id with copy, incoming offers. */
export function ReceivePage() {
  const { t } = useTranslation();
  const toast = useToast();
  const session = useP2pSession();
  const state = useSyncExternalStore(session?.subscribe ?? noSubscribe, session?.getSnapshot ?? (() => NO_STATE), () => NO_STATE);

  // Opening the page receives; leaving it stops (offers need the page to answer them).
  useEffect(() => {
    if (!session) return;
    void session.setReceiving(true).catch(() => undefined);
    return () => {
      void session.setReceiving(false).catch(() => undefined);
    };
  }, [session]);

  const copy = async () => {
    if (!state.deviceId) return;
    try {
      await navigator.clipboard.writeText(state.deviceId);
      toast.success(t("p2p.receiver.copied"));
    } catch {
      toast.error(t("p2p.receiver.copy-failed"));
    }
  };

  return (
    <ScriptRequired message={t("p2p.needs-javascript")}>
      <div className="flex max-w-4xl flex-col gap-5">
        <Callout>{t("p2p.receiver.tips")}</Callout>
        {!session || (!state.deviceId && !state.error) ? (
          <Spinner label={t("p2p.connecting")} />
        ) : (
          <>
            {state.error && <Callout tone="error">{t("p2p.unavailable", { reason: state.error })}</Callout>}
            {state.deviceId && (
              <section aria-labelledby="p2p-device-id" className="flex flex-col gap-1">
                <h2 id="p2p-device-id" className="text-sm font-medium text-gray-800">
                  {t("p2p.receiver.device-id")}
                </h2>
                <div className="flex flex-wrap items-center gap-4">
                  <output className="select-all font-mono text-4xl font-semibold tracking-wider text-gray-900" aria-labelledby="p2p-device-id">
                    {formatDeviceId(state.deviceId)}
                  </output>
                  <Button variant="outlined" aria-label={t("p2p.receiver.copy.label", { id: formatDeviceId(state.deviceId) })} onClick={() => void copy()}>
                    {t("p2p.receiver.copy")}
                  </Button>
                </div>
                <p className="text-xs text-gray-600">{t("p2p.receiver.device-id.hint")}</p>
              </section>
            )}
            <Switch
              label={t("p2p.receiver.allow")}
              description={t(state.receiving ? "p2p.receiver.allow.on" : "p2p.receiver.allow.off")}
              checked={state.receiving}
              disabled={!state.deviceId}
              onChange={(allow) => void session.setReceiving(allow)}
            />
            {state.replaced && (
              <Callout tone="warning">
                <span className="mr-3">{t("p2p.receiver.replaced")}</span>
                <Button size="small" variant="outlined" onClick={() => void session.setReceiving(true)}>
                  {t("p2p.receiver.receive-here")}
                </Button>
              </Callout>
            )}
            <section aria-labelledby="p2p-offers" className="flex flex-col gap-3">
              <h2 id="p2p-offers" className="text-base font-semibold text-gray-900">
                {t("p2p.receiver.offers")}
              </h2>
              {state.offers.length === 0 ? (
                <p className="text-sm text-gray-600">{t("p2p.receiver.offers.empty")}</p>
              ) : (
                <ul className="flex flex-col gap-3">
                  {state.offers.map((offer) => (
                    <OfferCard key={offer.transferId} offer={offer} session={session} />
                  ))}
                </ul>
              )}
            </section>
          </>
        )}
      </div>
    </ScriptRequired>
  );
}

function OfferCard({ offer, session }: { offer: IncomingOffer; session: P2pSession }) {
  const { t } = useTranslation();
  const toast = useToast();
  const id = useId();
  const connection = useFileConnection();
  const account = offer.from.account;
  const [target, setTarget] = useState<"ferry" | "local">("ferry");
  const [folder, setFolder] = useState(`/P2P/${account}`);
  const [choosing, setChoosing] = useState(false);
  const [chosen, setChosen] = useState("/");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [localFolders, setLocalFolders] = useState(false);
  useEffect(() => {
    void import("./peer.client").then(({ localFoldersSupported }) => setLocalFolders(localFoldersSupported()));
  }, []);

  const accept = async () => {
    setBusy(true);
    setError(null);
    try {
      const { pickLocalFolder } = await import("./peer.client");
      let directory: FileSystemDirectoryHandle | null = null;
      if (target === "local" && localFolders) {
        directory = await pickLocalFolder();
        if (!directory) {
          setError(t("p2p.reason.no-folder"));
          return;
        }
      }
      const path = `/${folder.split("/").filter(Boolean).join("/")}`;
      await session.accept(offer, target === "ferry" ? { kind: "ferry", folder: path } : { kind: "local", directory });
      toast.success(t("p2p.receiver.accepted"));
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };

  const decline = async () => {
    setBusy(true);
    try {
      await session.decline(offer.transferId);
      toast.info(t("p2p.receiver.declined"));
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };

  // The offer carries its first entries only (P2P_SUMMARY_ENTRIES); the counts are the whole offer's.
  const entries = offer.fileCount + offer.folderCount;
  const more = entries - Math.min(FILES_SHOWN, offer.files.length);
  return (
    <li className="rounded border border-gray-200 bg-white p-4" aria-labelledby={`${id}-from`}>
      <p id={`${id}-from`} className="text-sm font-medium text-gray-900">
        {t("p2p.receiver.offer.from", { account, device: formatDeviceId(offer.from.deviceId) })}
      </p>
      <ul aria-label={t("p2p.receiver.offer.files", { account })} className="mt-2 flex flex-col gap-1 text-sm text-gray-800">
        {offer.files.slice(0, FILES_SHOWN).map((file) => (
          <li key={file.path} className="flex items-center gap-2">
            {file.kind === 1 ? <FolderIcon className="shrink-0 text-gray-400" /> : <FileIcon className="shrink-0 text-gray-400" />}
            <span className="min-w-0 flex-1 truncate" title={file.path}>
              {file.path}
            </span>
            <span className="shrink-0 text-gray-600">{file.kind === 1 ? t("p2p.receiver.folder-entry") : formatSize(file.size)}</span>
          </li>
        ))}
      </ul>
      {more > 0 && <p className="mt-1 text-xs text-gray-600">{t("p2p.receiver.offer.more", { count: more })}</p>}
      <p className="mt-2 text-sm font-medium text-gray-800">{t("p2p.receiver.offer.total", { count: entries, size: formatSize(offer.totalBytes) })}</p>

      <fieldset className="mt-3 flex flex-col gap-2">
        <legend className="mb-1 text-sm font-medium text-gray-800">{t("p2p.receiver.target")}</legend>
        <label className="flex items-center gap-2 text-sm text-gray-800">
          <input type="radio" name={`${id}-target`} checked={target === "ferry"} onChange={() => setTarget("ferry")} className="accent-primary" />
          {t("p2p.receiver.target.ferry")}
        </label>
        {target === "ferry" && (
          <div className="ml-6 flex flex-wrap items-end gap-2">
            <label className="flex flex-col gap-1 text-xs text-gray-700">
              {t("p2p.receiver.folder")}
              <input
                value={folder}
                onChange={(e) => setFolder(e.target.value)}
                className="h-8 w-80 rounded border border-gray-300 bg-white px-3 text-sm text-gray-900 focus:border-primary focus:outline-none focus:ring-1 focus:ring-primary"
              />
            </label>
            <Button
              variant="outlined"
              aria-label={t("p2p.receiver.choose-folder.label")}
              onClick={() => {
                setChosen("/");
                setChoosing(true);
              }}
            >
              {t("p2p.receiver.choose-folder")}
            </Button>
          </div>
        )}
        <label className="flex items-center gap-2 text-sm text-gray-800">
          <input type="radio" name={`${id}-target`} checked={target === "local"} onChange={() => setTarget("local")} className="accent-primary" />
          {t("p2p.receiver.target.local")}
        </label>
        {target === "local" && <p className="ml-6 text-xs text-gray-600">{t(localFolders ? "p2p.receiver.target.local.hint" : "p2p.receiver.target.local.download")}</p>}
      </fieldset>

      {error && (
        <p role="alert" className="mt-2 text-sm text-red-600">
          {error}
        </p>
      )}
      <div className="mt-3 flex gap-2">
        <Button loading={busy} aria-label={t("p2p.receiver.accept.label", { account })} onClick={() => void accept()}>
          {t("p2p.receiver.accept")}
        </Button>
        <Button variant="outlined" danger disabled={busy} aria-label={t("p2p.receiver.decline.label", { account })} onClick={() => void decline()}>
          {t("p2p.receiver.decline")}
        </Button>
      </div>

      <Modal
        open={choosing}
        onClose={() => setChoosing(false)}
        title={t("p2p.receiver.choose-folder.title")}
        width={520}
        onConfirm={() => {
          setFolder(chosen);
          setChoosing(false);
          return true;
        }}
      >
        {choosing && <FolderTree connection={connection} groupId={0} selected={chosen} onSelect={setChosen} height={300} />}
        <p className="mt-3 break-all text-sm text-gray-600">{t("p2p.receiver.folder.chosen", { path: chosen })}</p>
      </Modal>
    </li>
  );
}
