import type { IncomingMessage, ServerResponse } from "node:http";
import { FerryError } from "../errors";
import type { Services } from "../services";

const MIB = 1024 * 1024;

/**
 * The Transfer protocol settings on the bytes of tus uploads (docs/file-server.md, "Part size and
 * parallel uploads"), for every request that carries upload bytes (PATCH, and a creation with a
 * body), of signed-in users and share visitors alike:
 *
 * - `uploadPartMB` > 0: a request body over that many MiB is refused with 4209 (413) from its
 *   `Content-Length`, before a byte of it is read or stored; a body without a length (chunked) is
 *   refused the same way, since its size cannot be known before reading it.
 * - `parallelUploads`: at most that many files of one caller receive bytes at once — one caller
 *   is one sign-in (the session behind the websocket token; a desktop client has its own) or one
 *   share token. A request for another file answers 4210 (429, `Retry-After: 1`) before its body is
 *   read; nothing is stored, so the client resumes from the stored offset later. A file is its
 *   target (space and path): the chunks of one file (`Ferry-Chunk`) are one file, and a further
 *   request to a file already receiving (a client's retry after a drop) is no extra file.
 *
 * The count lives in this engine instance's memory: behind a load balancer each instance counts
 * the requests it serves.
 */
export function createUploadLimits(services: Services) {
  /** Per caller: file (its target, or a creation's own key) → its requests in flight. */
  const inFlight = new Map<string, Map<string, number>>();
  let creations = 0;

  const release = (caller: string, upload: string) => {
    const uploads = inFlight.get(caller);
    const left = (uploads?.get(upload) ?? 0) - 1;
    if (!uploads) return;
    if (left > 0) uploads.set(upload, left);
    else uploads.delete(upload);
    if (uploads.size === 0) inFlight.delete(caller);
  };

  return {
    /**
     * Checks a request that carries upload bytes and counts it while it runs (until its response
     * closes); the refusal, or null when admitted. `file`: the upload's target, or null for a creation.
     */
    async admit(req: IncomingMessage, res: ServerResponse, caller: string, file: string | null): Promise<FerryError | null> {
      const { uploadPartMB, parallelUploads } = await services.settings.get("protocol");
      if (uploadPartMB > 0) {
        const limit = uploadPartMB * MIB;
        const length = req.headers["content-length"];
        const declared = length === undefined ? Number.POSITIVE_INFINITY : Number(length);
        if (!(declared <= limit)) return new FerryError("UploadPartTooLarge", { limit }, { limit });
      }
      const key = file ?? `creation:${++creations}`;
      const uploads = inFlight.get(caller) ?? new Map<string, number>();
      if (!uploads.has(key) && uploads.size >= parallelUploads) return new FerryError("UploadsBusy", { max: parallelUploads }, { max: parallelUploads });
      uploads.set(key, (uploads.get(key) ?? 0) + 1);
      inFlight.set(caller, uploads);
      let done = false;
      const end = () => {
        if (done) return;
        done = true;
        release(caller, key);
      };
      res.once("close", end);
      // The client may have gone while the settings were read: its close has passed already.
      if (req.socket.destroyed) end();
      return null;
    },
  };
}

/** The file an upload's bytes are for: its target as the client named it (parts of one file share it). */
export const fileOf = (id: string, metadata: Record<string, string | null> | undefined) =>
  metadata?.path ? `${metadata.groupId ?? ""}:${metadata.path}` : `upload:${id}`;

/** Whether a tus request carries upload bytes: every PATCH, and a creation with its first bytes. */
export function carriesBytes(req: IncomingMessage): boolean {
  if (req.method === "PATCH") return true;
  if (req.method !== "POST") return false;
  const length = req.headers["content-length"];
  return (length !== undefined && Number(length) > 0) || req.headers["transfer-encoding"] !== undefined;
}
