import type { FetcherWithComponents } from "@remix-run/react";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { Button } from "../components/ui/button";
import { Callout } from "../components/ui/callout";
import { ComboboxInput } from "../components/ui/combobox-input";
import { FileIcon, FolderIcon, UploadIcon } from "../components/ui/icons";
import { ScriptRequired } from "../components/ui/script-required";
import { Table, type Column } from "../components/ui/table";
import { useToast } from "../components/ui/toast";
import { itemsFromDataTransfer } from "../transfers/drop";
import { PickInputs } from "../transfers/pick-inputs";
import type { UploadBatch } from "../transfers/types";
import { formatSize } from "../utils/format";
import { rememberedIds, rememberReceiver, storedFileGroup, storeFileGroup } from "./device.client";
import { formatDeviceId } from "./device-id";
import { FerryPicker } from "./ferry-picker";
import { groupOf } from "./file-group";
import { pickedFromBatch, type Picked } from "./picked";
import { sendSchema, type SendCheck } from "./send-form";
import { useP2pSession } from "./use-p2p";

/** The picked lines of this page load: the File objects live as long as the page (the stored list keeps names only). */
let memory: Picked[] | null = null;

type Errors = { receiver?: string; entries?: string; form?: string };
type Row = Picked & { key: string; index: number };

/** The sender of spec section 2: receiver id with remembered ids, files and folders to send, Send. */
export function SendPage({ fetcher }: { fetcher: FetcherWithComponents<SendCheck> }) {
  const { t, i18n } = useTranslation();
  const toast = useToast();
  const session = useP2pSession();
  const [receiver, setReceiver] = useState("");
  const [remembered, setRemembered] = useState<string[]>([]);
  const [picked, setPickedState] = useState<Picked[]>([]);
  const [errors, setErrors] = useState<Errors>({});
  const [dragging, setDragging] = useState(false);
  const [sending, setSending] = useState(false);
  const [ferryOpen, setFerryOpen] = useState(false);
  const filesInput = useRef<HTMLInputElement>(null);
  const folderInput = useRef<HTMLInputElement>(null);
  const handled = useRef<unknown>(null);

  const setPicked = (next: Picked[]) => {
    memory = next;
    setPickedState(next);
    storeFileGroup(groupOf(next.map((p) => p.entry)));
  };

  useEffect(() => {
    setRemembered(rememberedIds());
    // Lines from an earlier visit have no files any more: shown, marked, to be picked again.
    setPickedState(memory ?? storedFileGroup().list.map((entry) => ({ entry: { ...entry, old: true }, items: [] })));
  }, []);

  const addLines = (lines: Picked[]) => {
    if (lines.length === 0) return;
    // A line picked again (same name, same place) replaces the first.
    const key = (p: Picked) => `${p.entry.source ?? "local"}\u0000${p.entry.name}`;
    const keys = new Set(lines.map(key));
    setPicked([...picked.filter((p) => !keys.has(key(p))), ...lines]);
    setErrors((e) => ({ ...e, entries: undefined }));
  };
  const add = (batch: UploadBatch) => addLines(pickedFromBatch(batch));

  const sendable = picked.filter((p) => p.items.length > 0);
  const group = groupOf(sendable.map((p) => p.entry));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = sendSchema.safeParse({ receiver, entries: sendable.length });
    if (!parsed.success) {
      const next: Errors = {};
      for (const issue of parsed.error.issues) next[issue.path[0] as keyof Errors] ??= issue.message;
      setErrors(next);
      return;
    }
    setErrors({});
    fetcher.submit({ receiver: parsed.data.receiver, entries: String(sendable.length) }, { method: "post" });
  };

  // The action's answer: refused (33, 35, an engine error) or ready: then the offer goes out.
  useEffect(() => {
    const answer = fetcher.data;
    if (!answer || fetcher.state !== "idle" || handled.current === answer) return;
    handled.current = answer;
    if (!answer.ok) {
      setErrors(answer.errors);
      return;
    }
    if (!answer.online) {
      setErrors({ form: "p2p.sender.offline" });
      return;
    }
    if (!session) return;
    setSending(true);
    const entries = sendable.flatMap((p) => p.items);
    session
      .send(answer.id, answer.account, entries)
      .then(() => {
        setRemembered(rememberReceiver(answer.id));
        setPicked([]);
        toast.success(t("p2p.sender.sent", { account: answer.account }));
      })
      .catch((error: unknown) => setErrors({ form: error instanceof Error ? error.message : String(error) }))
      .finally(() => setSending(false));
    // Only a new answer starts an offer.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [fetcher.data, fetcher.state]);

  const text = (key?: string) => (key && i18n.exists(key) ? t(key) : key);
  const busy = fetcher.state !== "idle" || sending;

  const columns: Column<Row>[] = [
    {
      key: "name",
      title: t("p2p.sender.column.name"),
      type: "custom",
      render: (row) => (
        <span className="flex min-w-0 items-center gap-2">
          {row.entry.file_type === 1 ? <FolderIcon className="shrink-0 text-gray-400" /> : <FileIcon className="shrink-0 text-gray-400" />}
          <span className="truncate" title={row.entry.name}>
            {row.entry.name}
          </span>
          {row.entry.old && <span className="shrink-0 text-xs text-amber-700">{t("p2p.sender.old")}</span>}
        </span>
      ),
    },
    { key: "size", title: t("p2p.sender.column.size"), width: 140, type: "custom", render: (row) => (row.entry.old ? "" : formatSize(row.entry.file_size)) },
    { key: "where", title: t("p2p.sender.column.where"), width: 160, type: "custom", render: (row) => t(row.entry.source === "ferry" ? "p2p.sender.where.ferry" : "p2p.sender.where.local") },
    {
      key: "remove",
      title: "",
      width: 110,
      type: "custom",
      render: (row) => (
        <Button size="small" variant="text" danger aria-label={t("p2p.sender.remove.label", { name: row.entry.name })} onClick={() => setPicked(picked.filter((_, i) => i !== row.index))}>
          {t("p2p.sender.remove")}
        </Button>
      ),
    },
  ];
  const rows: Row[] = picked.map((p, index) => ({ ...p, key: `${index}:${p.entry.name}`, index }));

  return (
    <ScriptRequired message={t("p2p.needs-javascript")}>
      <form noValidate onSubmit={submit} className="flex max-w-4xl flex-col gap-5" aria-label={t("shell.page.p2p.sender")}>
        <ComboboxInput
          label={t("p2p.sender.receiver-id")}
          name="receiver"
          required
          value={receiver}
          onChange={(v) => {
            setReceiver(v);
            if (errors.receiver) setErrors((e) => ({ ...e, receiver: undefined }));
          }}
          options={remembered}
          display={formatDeviceId}
          buttonLabel={t("p2p.sender.show-remembered")}
          listLabel={t("p2p.sender.remembered")}
          placeholder={t("p2p.sender.receiver-id.placeholder")}
          error={errors.receiver}
          className="max-w-sm"
          inputClassName="font-mono tracking-wider"
        />

        <section aria-labelledby="p2p-files" className="flex flex-col gap-2">
          <h2 id="p2p-files" className="text-sm font-medium text-gray-800">
            {t("p2p.sender.files")}
            <span aria-hidden="true" className="ml-0.5 text-red-600">
              *
            </span>
          </h2>
          <div className="flex flex-wrap items-center gap-2">
            <Button type="button" onClick={() => filesInput.current?.click()}>
              <UploadIcon />
              {t("p2p.sender.add-files")}
            </Button>
            <Button type="button" variant="outlined" onClick={() => folderInput.current?.click()}>
              <UploadIcon />
              {t("p2p.sender.add-folder")}
            </Button>
            <Button type="button" variant="outlined" onClick={() => setFerryOpen(true)}>
              {t("p2p.sender.add-ferry")}
            </Button>
            {picked.length > 0 && (
              <Button type="button" variant="text" onClick={() => setPicked([])}>
                {t("p2p.sender.clear")}
              </Button>
            )}
            <PickInputs filesRef={filesInput} folderRef={folderInput} filesLabel={t("p2p.sender.add-files")} folderLabel={t("p2p.sender.add-folder")} onPick={add} />
          </div>
          <div
            role="group"
            aria-label={t("p2p.sender.drop-zone")}
            className="relative"
            onDragOver={(event) => {
              if (!event.dataTransfer.types.includes("Files")) return;
              event.preventDefault();
              setDragging(true);
            }}
            onDragLeave={(event) => {
              if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setDragging(false);
            }}
            onDrop={(event) => {
              event.preventDefault();
              setDragging(false);
              void itemsFromDataTransfer(event.dataTransfer).then(add);
            }}
          >
            <Table label={t("p2p.sender.files")} columns={columns} data={rows} rowKey="key" />
            <p className="mt-1 text-xs text-gray-600">{t("p2p.sender.drop")}</p>
            {dragging && (
              <div className="pointer-events-none absolute inset-0 flex items-center justify-center rounded border-2 border-dashed border-primary bg-primary/5 text-sm font-medium text-primary">
                {t("p2p.sender.drop-zone")}
              </div>
            )}
          </div>
          {errors.entries && (
            <p role="alert" className="text-xs text-red-600">
              {text(errors.entries)}
            </p>
          )}
          <p className="text-sm text-gray-700">{t("p2p.sender.summary", {
              files: t("p2p.sender.file-count", { count: group.fileCount }),
              folders: t("p2p.sender.folder-count", { count: group.folderCount }),
              size: formatSize(group.size),
            })}</p>
        </section>

        <FerryPicker open={ferryOpen} onClose={() => setFerryOpen(false)} onAdd={addLines} />
        {errors.form && <Callout tone="error">{text(errors.form)}</Callout>}
        <div>
          <Button type="submit" loading={busy}>
            {busy ? t("p2p.sender.checking") : t("p2p.sender.send")}
          </Button>
        </div>
      </form>
    </ScriptRequired>
  );
}
