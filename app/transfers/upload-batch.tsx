import { useCallback, useRef, useState, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { Button } from "../components/ui/button";
import { Modal } from "../components/ui/modal";
import { ErrorCode, errorMessageKey } from "../../contract/errors";
import type { SocketArgs, SocketCommand, SocketResults } from "../../contract/files";
import type { UploadRules } from "../../contract/upload-rules";
import { errorCode } from "../files/errors";
import { useFileServer } from "../files/file-server-context";
import { formatSize } from "../utils/format";
import { useFileErrors } from "../files/use-file-errors";
import { candidateNames, namesByFolder, pickFreeNames, resolveConflicts, splitPath, type ConflictChoice } from "./conflicts";
import { folderSteps, uploadPath } from "./drop";
import { askClientPrompt, emitTransferEvent } from "./events";
import { NO_ROOM, refusalOf, refusedForRoom, SKIPPED } from "./refusals";
import type { UploadBatch, UploadItem } from "./types";
import { useTransfers } from "./use-transfers";

/** What the batch needs of the page's file-server connection. */
interface Commands {
  cmd<C extends SocketCommand>(cmd: C, args: SocketArgs<C>): Promise<SocketResults[C]>;
}

export interface UploadBatchOptions {
  connection: Commands | null;
  groupId: number;
  /** A share-link visitor, who may not ask `exists` (the folder's listing tells instead). */
  visitor: boolean;
  /** Whether "Overwrite" is offered: not to visitors, nor without the Delete bit; the engine refuses overwrite for both. */
  canOverwrite: boolean;
}

interface Question {
  batch: UploadBatch;
  folder: string;
  clashes: Set<string>;
  /** Files of the pick or drop refused before the question (refusals.ts, each with its `refused` reason): the question says so. */
  refused: UploadItem[];
  /** Whether "Overwrite" is offered: the Delete bit, and not where only new files may be uploaded. */
  canReplace: boolean;
  /** Only new files may be uploaded here (the user's or the group's rule): the question says why it cannot replace. */
  newOnly: boolean;
}

/** Folders asked about at once; a folder upload can name hundreds. */
const PARALLEL_CHECKS = 4;
/** "keep both" candidates asked per clashing name and round. */
const CANDIDATES_PER_ROUND = 20;
const MAX_ROUNDS = 50;
/** exists takes at most this many names per call (contract/files.ts). */
const EXISTS_MAX_NAMES = 10_000;
/** Names listed in the question; the rest are counted. */
const NAMES_SHOWN = 5;

async function inParallel<T, R>(inputs: readonly T[], limit: number, work: (input: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(inputs.length);
  let next = 0;
  const worker = async () => {
    while (next < inputs.length) {
      const at = next++;
      results[at] = await work(inputs[at]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, inputs.length) }, worker));
  return results;
}

/**
 * Starts the uploads of one pick or drop: first refuses what cannot be uploaded whatever the answer
 * (refusals.ts: over the size limit, a name the engine refuses; they fail in the transfer list at
 * once), then asks once per batch what to do with names of the others that already exist at the
 * target (overwrite, skip, keep both — "name (1).ext"), creates the empty folders of a dropped
 * tree, then hands the files to the transfer manager. `dialog` is the question, to render.
 */
export function useUploadBatch({ connection, groupId, visitor, canOverwrite }: UploadBatchOptions): { start: (batch: UploadBatch, folder: string) => void; dialog: ReactNode } {
  const { t } = useTranslation();
  const showError = useFileErrors();
  const { upload } = useTransfers();
  const [question, setQuestion] = useState<Question | null>(null);
  const [shown, setShown] = useState<Question | null>(null);
  const server = useFileServer();
  const sizeLimit = server?.tcpFileSizeLimit ?? 0;
  const clientPromptMB = server?.uploads.clientPromptMB ?? 0;
  const latest = useRef({ connection, groupId, visitor, upload, showError, sizeLimit, canOverwrite, clientPromptMB });
  latest.current = { connection, groupId, visitor, upload, showError, sizeLimit, canOverwrite, clientPromptMB };

  /** Which of `names` exist in `folder` on the server; a missing folder holds none. */
  const takenIn = useCallback(async (folder: string, names: readonly string[], listings: Map<string, Promise<Set<string>>>): Promise<Set<string>> => {
    const { connection: conn, groupId: group, visitor: isVisitor } = latest.current;
    if (!conn || names.length === 0) return new Set();
    const none = (error: unknown) => {
      const code = errorCode(error);
      // No such folder yet (commit creates it), or a file in the way (the upload reports it).
      if (code === ErrorCode.PathNotFound || code === ErrorCode.DirectoryNotExist || code === ErrorCode.PathIsFile) return new Set<string>();
      // Without the List bit nothing can be known; the engine still refuses an existing name (4158).
      if (code === ErrorCode.PermissionDenied) return new Set<string>();
      throw error;
    };
    if (!isVisitor) {
      const found = new Set<string>();
      for (let at = 0; at < names.length; at += EXISTS_MAX_NAMES) {
        const existing = await conn.cmd("exists", { groupId: group, target: folder, names: names.slice(at, at + EXISTS_MAX_NAMES) }).then((r) => r.existing, none);
        for (const name of existing) found.add(name);
      }
      return found;
    }
    // A share visitor may not ask `exists`, but sees the invitation folder's listing.
    let listing = listings.get(folder);
    if (!listing) {
      listing = conn.cmd("list", { groupId: group, path: folder }).then((r) => new Set(r.names), none);
      listings.set(folder, listing);
    }
    const all = await listing;
    return new Set(names.filter((name) => all.has(name)));
  }, []);

  const go = useCallback(async (batch: UploadBatch, folder: string) => {
    const { connection: conn, groupId: group, upload: send, showError: report, visitor: isVisitor } = latest.current;
    // Small files go many per request; the engine takes batches from signed-in users only.
    if (batch.items.length > 0) send(batch.items, { groupId: group, path: folder }, { batch: !isVisitor });
    if (!conn || batch.folders.length === 0) return;
    // Parents first; an existing folder is fine (a file's commit, or the user, made it).
    const steps = folderSteps(folder, batch.folders);
    for (const step of steps) {
      try {
        await conn.cmd("mkdir", { groupId: group, ...step });
      } catch (error) {
        if (errorCode(error) === ErrorCode.PathExists) continue;
        report(error);
        break;
      }
    }
    const top = steps[0]!;
    emitTransferEvent({ type: "folders-created", groupId: group, path: `${top.path === "/" ? "" : top.path}/${top.name}` });
  }, []);

  const start = useCallback(
    (batch: UploadBatch, folder: string) => {
      if (batch.items.length === 0 && batch.folders.length === 0) return;
      void (async () => {
        const { sizeLimit: limit, upload: send, groupId: group, connection: conn, visitor: isVisitor, canOverwrite: mayReplace, clientPromptMB: promptMB } = latest.current;
        // A batch over the transfer settings' client prompt suggests the desktop client first; the
        // user may continue in the browser, or leave the batch to the client (nothing goes up here).
        const total = batch.items.reduce((sum, item) => sum + item.file.size, 0);
        if (promptMB > 0 && total > promptMB * 1024 * 1024 && !(await askClientPrompt(total, promptMB * 1024 * 1024))) return;
        // The space's permission, room and rules as they are now (the page's may be stale); without
        // them (a share visitor, an older engine) the engine's own refusals still say why.
        const rules: UploadRules | null = conn && !isVisitor ? await conn.cmd("uploadRules", { groupId: group }).catch(() => null) : null;
        const canReplace = mayReplace && !rules?.uploadNewOnly;
        // Refused before anything is asked: no question about a file that could never go up.
        let refused: UploadItem[] = batch.items.flatMap((item) => {
          const refusal = refusalOf(item, limit, rules, folder);
          return refusal ? [{ ...item, refused: refusal }] : [];
        });
        const refusedFiles = new Set(refused.map((item) => item.file));
        const allowed = { items: batch.items.filter((item) => !refusedFiles.has(item.file)), folders: batch.folders };
        // The manager fails them in the list at once (and offers the desktop client for a size).
        const refuse = (quiet: boolean) => refused.length > 0 && send(refused, { groupId: group, path: folder }, { quiet });
        const paths = allowed.items.map((item) => uploadPath(folder, item));
        const listings = new Map<string, Promise<Set<string>>>();
        const folders = [...namesByFolder(paths)];
        let clashes: Set<string>;
        try {
          const taken = await inParallel(folders, PARALLEL_CHECKS, ([dir, names]) => takenIn(dir, names, listings));
          clashes = new Set(folders.flatMap(([dir], i) => [...taken[i]!].map((name) => `${dir === "/" ? "" : dir}/${name}`)));
        } catch (error) {
          refuse(false);
          latest.current.showError(error);
          return;
        }
        // What does not fit in the quota is refused too, before the question. A file that may replace
        // one of its name needs only the difference: the sizes of those too large to fit are asked.
        const room = rules && rules.quota > 0 ? rules.quota - rules.used : Infinity;
        const replaces = new Map<string, number>();
        const askSizes = canReplace && conn ? paths.filter((path, i) => clashes.has(path) && allowed.items[i]!.file.size > room) : [];
        await inParallel(askSizes, PARALLEL_CHECKS, async (path) => {
          const size = await conn!.cmd("attributes", { groupId: group, paths: [path] }).then((a) => a.file_size, () => undefined);
          if (size !== undefined) replaces.set(path, size);
        });
        const noRoom = refusedForRoom(allowed.items.map((item, i) => ({ item, clash: clashes.has(paths[i]!), replaces: replaces.get(paths[i]!) })), rules, canReplace);
        if (noRoom.size > 0) {
          refused = [...refused, ...[...noRoom].map(([item, refusal]) => ({ ...item, refused: refusal }))];
          allowed.items = allowed.items.filter((item) => !noRoom.has(item));
          clashes = new Set(allowed.items.map((item) => uploadPath(folder, item)).filter((path) => clashes.has(path)));
        }
        if (clashes.size === 0) {
          refuse(false);
          return go(allowed, folder);
        }
        // One dialog at a time: the question says what was refused, instead of the desktop-client dialog.
        refuse(true);
        const next = { batch: allowed, folder, clashes, refused, canReplace, newOnly: !!rules?.uploadNewOnly };
        setQuestion(next);
        setShown(next);
      })();
    },
    [go, takenIn],
  );

  /** Free "name (n).ext" names for every clashing path, asked from the server round by round. */
  const keepBothNames = useCallback(
    async (ask: Question): Promise<Map<string, string>> => {
      const paths = ask.batch.items.map((item) => uploadPath(ask.folder, item));
      const renamed = new Map<string, string>();
      const listings = new Map<string, Promise<Set<string>>>();
      for (const [dir, names] of namesByFolder([...ask.clashes])) {
        const used = new Set(paths.map(splitPath).filter(([d]) => d === dir).map(([, name]) => name));
        let pending = names;
        for (let round = 0; round < MAX_ROUNDS && pending.length > 0; round += 1) {
          const first = 1 + round * CANDIDATES_PER_ROUND;
          const taken = await takenIn(dir, candidateNames(pending, first, CANDIDATES_PER_ROUND), listings);
          const picked = pickFreeNames(pending, taken, used, first, CANDIDATES_PER_ROUND);
          for (const [name, free] of picked) renamed.set(`${dir === "/" ? "" : dir}/${name}`, free);
          pending = pending.filter((name) => !picked.has(name));
        }
      }
      return renamed;
    },
    [takenIn],
  );

  const answer = async (choice: ConflictChoice) => {
    const ask = question;
    if (!ask) return;
    let renamed: Map<string, string> | undefined;
    if (choice === "keep-both") {
      try {
        renamed = await keepBothNames(ask);
      } catch (error) {
        showError(error);
        return;
      }
    }
    setQuestion(null);
    void go({ items: resolveConflicts(ask.batch.items, ask.folder, ask.clashes, choice, renamed), folders: ask.batch.folders }, ask.folder);
  };

  const names = shown ? [...shown.clashes].map((path) => path.slice(shown.folder === "/" ? 1 : shown.folder.length + 1)) : [];
  const listOf = (all: readonly string[]) => {
    const first = all.slice(0, NAMES_SHOWN).join(", ");
    return all.length > NAMES_SHOWN ? t("transfers.conflict.names-more", { names: first, count: all.length - NAMES_SHOWN, interpolation: { escapeValue: false } }) : first;
  };
  const refusedNames = (key: string) => (shown?.refused ?? []).filter((item) => item.refused?.errorMsgKey === key).map((item) => item.relativePath || item.file.name);
  // What was refused before the question, one line per reason (the transfer list has each file's own).
  const refusedLines = [
    { names: refusedNames(errorMessageKey(ErrorCode.FileTooLarge)), text: (count: number, names: string) => t("transfers.refused.too-large", { limit: formatSize(sizeLimit), count, names }) },
    { names: refusedNames(errorMessageKey(ErrorCode.NameFormat)), text: (count: number, names: string) => t("transfers.refused.name", { count, names }) },
    { names: refusedNames(errorMessageKey(ErrorCode.FileFormatRefused)), text: (count: number, names: string) => t("transfers.refused.format", { count, names }) },
    { names: refusedNames(NO_ROOM), text: (count: number, names: string) => t("transfers.refused.room", { count, names }) },
    { names: refusedNames(SKIPPED), text: (count: number, names: string) => t("transfers.refused.filtered", { count, names }) },
  ].filter((line) => line.names.length > 0);
  const replace = shown?.canReplace ?? canOverwrite;
  const dialog = (
    <Modal
      open={question !== null}
      title={t("transfers.conflict.title")}
      width={480}
      onClose={() => setQuestion(null)}
      afterClose={() => setShown(null)}
      footer={
        <div className="mt-6 flex flex-wrap justify-end gap-2">
          <Button variant="text" onClick={() => setQuestion(null)}>
            {t("global.cancel")}
          </Button>
          <Button variant="outlined" onClick={() => void answer("skip")}>
            {t("transfers.conflict.skip")}
          </Button>
          <Button variant={replace ? "outlined" : "contained"} onClick={() => void answer("keep-both")}>
            {t("transfers.conflict.keep-both")}
          </Button>
          {replace && <Button onClick={() => void answer("overwrite")}>{t("transfers.conflict.overwrite")}</Button>}
        </div>
      }
    >
      <p>{t("transfers.conflict.text", { count: names.length })}</p>
      <p className="mt-2 break-all font-medium text-gray-900">{listOf(names)}</p>
      <p className="mt-2 text-gray-500">{replace ? t("transfers.conflict.hint") : shown?.newOnly ? t("transfers.conflict.hint-new-only") : t("transfers.conflict.hint-no-replace")}</p>
      {refusedLines.map((line, i) => (
        <p key={i} className={`mt-3 break-words text-gray-700 ${i === 0 ? "border-t border-gray-200 pt-3" : ""}`}>
          {line.text(line.names.length, listOf(line.names))}
        </p>
      ))}
    </Modal>
  );

  return { start, dialog };
}
