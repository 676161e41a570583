import type { IncomingMessage } from "node:http";
import { PassThrough, type Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { type CancellationContext, type DataStore, ERRORS, type Server, StreamLimiter, type Upload } from "@tus/server";
import { FerryError } from "../errors";

/**
 * A PATCH's body straight from the Node request to the upload store.
 *
 * @tus/server 2.x reads a PATCH through srvx's web `Request`: the Node request becomes a web
 * stream (`Readable.toWeb`, which copies every network chunk into a new Uint8Array and pauses and
 * resumes the socket around each one) and then a Node stream again (`Readable.fromWeb`) before
 * it reaches `UploadStore.write`. Measured on the development machine (1 GiB PUT by curl into a
 * bare Node server writing with 1 MiB batches, alternating runs, load 9–12): ~1.4–1.6 CPU-s with
 * that round trip against ~1.1–1.2 CPU-s without it (docs/bench.md, "Upload path").
 *
 * So tus's PATCH handler gets the Node request itself as the body, and its `writeToStore` is the
 * same as tus's (BaseHandler.writeToStore of @tus/server 2.4) minus the `fromWeb`. Everything else
 * — headers, the lock and its release on request, offset and expiry checks, the size limit, the
 * reply, `onUploadFinish` — stays tus's. Only this handler instance changes; POST
 * (creation-with-upload) keeps tus's own path. tests/engine/uploads*.test.ts cover it.
 */

interface PatchHandlerInternals {
  store: DataStore;
  send(req: Request, context: CancellationContext, headers?: Headers): Promise<Response>;
  writeToStore(body: unknown, upload: Upload, maxFileSize: number, context: CancellationContext): Promise<number>;
}

/** The Node request under srvx's Request (`runtime.node.req`, as tus.ts reads it). */
const nodeRequestOf = (req: Request): IncomingMessage | undefined => (req as { runtime?: { node?: { req?: IncomingMessage } } }).runtime?.node?.req;

export function feedPatchBodiesDirectly(tus: Server): void {
  const handler = tus.handlers.PATCH as unknown as Partial<PatchHandlerInternals>;
  // Another @tus/server version without these internals keeps its own path, slower but correct.
  if (typeof handler.send !== "function" || typeof handler.writeToStore !== "function" || !handler.store) return;
  const patch = handler as PatchHandlerInternals;
  const send = patch.send.bind(patch);

  patch.send = (req, context, headers) => {
    const node = nodeRequestOf(req);
    if (!node) return send(req, context, headers);
    // Everything of the request as tus sees it, except `body`: the Node stream, read lazily by
    // writeToStore below. Methods run on the real request (srvx keeps private fields).
    const direct = new Proxy(req, {
      get(target, key) {
        if (key === "body") return node;
        const value: unknown = Reflect.get(target, key, target);
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    return send(direct, context, headers);
  };

  patch.writeToStore = async (body, upload, maxFileSize, context) => {
    if (context.signal.aborted) throw ERRORS.ABORTED;
    const source = body as Readable;
    // As tus: a PassThrough between the request and the store, so an abort (the client went away,
    // or another request asked for the lock) ends the write with what arrived, without destroying
    // the request, whose response is still to be sent.
    const proxy = new PassThrough();
    let sourceError: unknown;
    let hasSourceError = false;
    const onSourceError = (error: unknown) => {
      sourceError = error;
      hasSourceError = true;
      source.unpipe(proxy);
      if (!context.signal.aborted) proxy.destroy(error as Error);
    };
    source.on("error", onSourceError);
    const onAbort = () => {
      source.unpipe(proxy);
      if (!proxy.destroyed) proxy.end();
    };
    context.signal.addEventListener("abort", onAbort, { once: true });
    /** A catalogue error of the store (an upload into object storage: object-store.ts), which the pipeline would report as the stream's premature close. */
    let refusal: FerryError | null = null;
    try {
      let offset = upload.offset;
      // The last step gets the limiter itself (a Readable), as in tus.
      await pipeline(source.pipe(proxy), new StreamLimiter(maxFileSize), async (stream: AsyncIterable<Buffer>) => {
        try {
          offset = await patch.store.write(stream as Readable, upload.id, upload.offset);
        } catch (error) {
          if (error instanceof FerryError) refusal = error;
          throw error;
        }
      });
      return offset;
    } catch (error) {
      source.unpipe(proxy);
      if (refusal) {
        // The rest of the refused body is read and thrown away (bounded by linger.ts), so the connection serves the client's next request.
        source.resume();
        throw refusal;
      }
      const isSourceError = hasSourceError && error === sourceError;
      const isAbortError = error instanceof Error && error.name === "AbortError";
      throw isSourceError || isAbortError ? ERRORS.ABORTED : error;
    } finally {
      source.off("error", onSourceError);
      context.signal.removeEventListener("abort", onAbort);
    }
  };
}
