import { randomUUID } from "node:crypto";
import type { ServerResponse } from "node:http";
import { ErrorCode } from "../../contract/errors";
import type { Clock } from "../clock";
import type { Recorder } from "./recorder";

/*
 * The file server's side of the logs: downloads are written to the transfer log (and the operation
 * log) when their response ends, with the bytes that really went out; previews are kept in the
 * preview log while their signed URL lives, so the administrator sees who is previewing what and
 * can stop one (docs/admin-api.md, "Logs"). Kept in memory per engine process, like the tickets'
 * lifetime it follows.
 */

export interface DownloadMeta {
  userId: number | null;
  account?: string;
  accountType?: number;
  role: "user" | "admin" | "visitor";
  groupId: number;
  paths: string[];
  address: string | null;
  shareId: string | null;
  client?: boolean;
  /** Served as one zip (folders, several items). */
  zip: boolean;
  /** A share visitor's download: the link owner and the paths in the owner's space (`paths` are the visitor's, link-relative). */
  owner?: { userId: number; paths: string[] };
}

export interface TrackedDownload {
  /** Everything asked for went out up to the file's end (a whole file, the last range of one, a zip's end). */
  reachedEnd(): void;
  /** The handler is done with the response (always called, also after a refusal). */
  settle(): void;
  /** The administrator stopped it (server/tasks/): logged with 4187, not as stopped by the client. */
  stoppedByServer(): void;
}

export interface LivePreview {
  id: string;
  userId: number;
  account: string;
  groupId: number;
  path: string;
  address: string;
  /** When it was first opened, unix ms. */
  startedAt: number;
  /** Unix ms: its URL stops working then, and it leaves the list. */
  expiresAt: number;
  /** Responses sending its bytes now. */
  streaming: number;
}

interface PreviewState extends LivePreview {
  responses: Set<ServerResponse>;
}

export interface LiveLogs {
  trackDownload(res: ServerResponse, meta: DownloadMeta): TrackedDownload;
  /** A preview response begins: listed (by its signed URL) until the URL expires; false when the administrator stopped that URL. */
  openPreview(ticketText: string, res: ServerResponse, meta: { userId: number; account?: string; groupId: number; path: string; address: string | null; expiresAt: number }): boolean;
  previews(): LivePreview[];
  /** Ends a preview at once: its URL is refused from now on and its responses in flight are cut. False when unknown. */
  stopPreview(id: string): boolean;
  /** Called once per download that reached its end (ok) or broke off, where its operation is logged (the events, server/events/). */
  onDownload(listener: DownloadListener): void;
}

export type DownloadListener = (meta: DownloadMeta, outcome: { ok: boolean; bytes: number }) => void;

/** What a download's tracking is without the logs (FERRY_BENCH_LOGS_OFF): its response is left as it is. */
const UNTRACKED: TrackedDownload = { reachedEnd() {}, settle() {}, stoppedByServer() {} };

/** `trackDownloads` false (bench only, FERRY_BENCH_LOGS_OFF): downloads are not counted or logged. */
export function createLiveLogs(recorder: Pick<Recorder, "recordOperation" | "recordTransfer">, clock: Clock, options: { trackDownloads?: boolean } = {}): LiveLogs {
  const trackDownloads = options.trackDownloads ?? true;
  const byTicket = new Map<string, PreviewState>();
  const byId = new Map<string, string>();
  /** Stopped preview URLs, until they would have expired anyway. */
  const revoked = new Map<string, number>();
  const downloadListeners: DownloadListener[] = [];

  const prune = () => {
    const now = clock.now();
    for (const [ticket, state] of byTicket) {
      if (state.expiresAt <= now && state.responses.size === 0) {
        byTicket.delete(ticket);
        byId.delete(state.id);
      }
    }
    for (const [ticket, until] of revoked) if (until <= now) revoked.delete(ticket);
  };

  return {
    trackDownload(res, meta) {
      if (!trackDownloads) return UNTRACKED;
      const started = performance.now();
      // The body's bytes as they are handed to the connection (a file's, a range's, a zip's).
      let sent = 0;
      const write = res.write.bind(res) as (chunk: unknown, ...rest: unknown[]) => boolean;
      res.write = ((chunk: unknown, ...rest: unknown[]) => {
        sent += typeof chunk === "string" ? Buffer.byteLength(chunk) : ((chunk as Uint8Array | null)?.length ?? 0);
        return write(chunk, ...rest);
      }) as typeof res.write;
      let reachedEnd = false;
      let serverStop = false;
      let closed = false;
      let settled = false;
      // Written once the response is closed and the handler is done with it, whichever comes last.
      const record = () => {
        if (!closed || !settled) return;
        // Refused before any byte (403, 404, 416…): nothing was transferred.
        if (!res.headersSent || res.statusCode >= 300) return;
        const done = reachedEnd && res.writableFinished;
        const path = meta.paths.join(", ");
        recorder.recordTransfer({
          userId: meta.userId,
          account: meta.account,
          groupId: meta.groupId,
          direction: "download",
          bytes: sent,
          files: done ? meta.paths.length : 0,
          durationMs: performance.now() - started,
          result: done ? "ok" : res.writableFinished ? "ok" : "stopped",
          via: meta.shareId ? "share" : meta.zip ? "zip" : meta.client ? "client" : "web",
          path,
          address: meta.address,
          shareId: meta.shareId,
        });
        // One operation per download: when it reached its end, or broke off. A range that ends before
        // the file's end (one of a parallel download's parts) is only in the transfer log.
        if (!done && res.writableFinished) return;
        for (const listener of downloadListeners) listener(meta, { ok: done, bytes: sent });
        recorder.recordOperation({
          userId: meta.userId,
          account: meta.account,
          accountType: meta.accountType,
          role: meta.role,
          address: meta.address,
          kind: meta.shareId ? "share_download" : "download",
          target: path,
          detail: [meta.zip ? "zip" : "", meta.groupId > 0 ? `group ${meta.groupId}` : "", meta.shareId ? `link ${meta.shareId}` : ""].filter(Boolean).join(" "),
          ...(done ? {} : { result: "failed" as const, code: serverStop ? ErrorCode.StoppedByServer : ErrorCode.StoppedByClient }),
        });
      };
      res.once("close", () => {
        closed = true;
        record();
      });
      return {
        reachedEnd() {
          reachedEnd = true;
        },
        settle() {
          if (settled) return;
          settled = true;
          record();
        },
        stoppedByServer() {
          serverStop = true;
        },
      };
    },

    openPreview(ticketText, res, meta) {
      prune();
      if (revoked.has(ticketText)) return false;
      let state = byTicket.get(ticketText);
      if (!state) {
        state = {
          id: randomUUID(),
          userId: meta.userId,
          account: meta.account ?? "",
          groupId: meta.groupId,
          path: meta.path,
          address: meta.address ?? "",
          startedAt: clock.now(),
          expiresAt: meta.expiresAt,
          streaming: 0,
          responses: new Set(),
        };
        byTicket.set(ticketText, state);
        byId.set(state.id, ticketText);
        recorder.recordOperation({ userId: meta.userId, account: meta.account, address: meta.address, kind: "preview", target: `${meta.groupId > 0 ? `group ${meta.groupId}: ` : ""}${meta.path}` });
      }
      const s = state;
      s.responses.add(res);
      res.once("close", () => s.responses.delete(res));
      return true;
    },

    previews() {
      prune();
      return [...byTicket.values()].map(({ responses, ...p }) => ({ ...p, streaming: responses.size }));
    },

    onDownload(listener) {
      downloadListeners.push(listener);
    },

    stopPreview(id) {
      const ticket = byId.get(id);
      if (!ticket) return false;
      const state = byTicket.get(ticket)!;
      revoked.set(ticket, Math.max(state.expiresAt, clock.now() + 60_000));
      byTicket.delete(ticket);
      byId.delete(id);
      for (const res of state.responses) res.destroy();
      return true;
    },
  };
}
