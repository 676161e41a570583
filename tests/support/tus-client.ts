import { request } from "node:http";
import { createBLAKE3 } from "hash-wasm";

/**
 * Raw tus 1.0 requests against the file server's /uploads/ (docs/file-server.md, "Uploads"), for
 * engine tests that need to control every byte and every cut: `create`, `patch`, `head`, `remove`.
 * Replies carry the status, the headers and the parsed envelope when the body is one.
 */

export interface TusReply {
  status: number;
  headers: Headers;
  /** The JSON envelope of a refusal, or null. */
  body: { code: number; message: string; data: unknown } | null;
  text: string;
}

export const encodeMetadata = (meta: Record<string, string>) =>
  Object.entries(meta)
    .map(([k, v]) => `${k} ${Buffer.from(v, "utf8").toString("base64")}`)
    .join(",");

async function reply(res: Response): Promise<TusReply> {
  const text = await res.text();
  let body: TusReply["body"] = null;
  try {
    body = JSON.parse(text) as TusReply["body"];
  } catch {
    body = null;
  }
  return { status: res.status, headers: res.headers, body, text };
}

export function tusClient(fileUrl: string, token: string | null, extra: Record<string, string> = {}) {
  const base = `${fileUrl}/uploads/`;
  const headers = (more: Record<string, string> = {}) => ({
    "tus-resumable": "1.0.0",
    ...(token === null ? {} : { authorization: `Bearer ${token}` }),
    ...extra,
    ...more,
  });
  const urlOf = (id: string) => `${base}${id}`;
  return {
    urlOf,
    /** POST: creates an upload (with its first bytes when `body` is given). Returns the reply and the id from Location. */
    async create(meta: Record<string, string>, size: number, body?: Uint8Array, more: Record<string, string> = {}) {
      const res = await fetch(base, {
        method: "POST",
        headers: headers({
          "upload-length": String(size),
          "upload-metadata": encodeMetadata(meta),
          ...(body ? { "content-type": "application/offset+octet-stream" } : {}),
          ...more,
        }),
        body: body as BodyInit | undefined,
      });
      const r = await reply(res);
      const location = res.headers.get("location");
      return { ...r, id: location ? location.slice(location.lastIndexOf("/") + 1) : null };
    },
    async patch(id: string, offset: number, body: Uint8Array) {
      return reply(
        await fetch(urlOf(id), {
          method: "PATCH",
          headers: headers({ "upload-offset": String(offset), "content-type": "application/offset+octet-stream" }),
          body: body as BodyInit,
        }),
      );
    },
    async head(id: string) {
      return reply(await fetch(urlOf(id), { method: "HEAD", headers: headers() }));
    },
    async remove(id: string) {
      return reply(await fetch(urlOf(id), { method: "DELETE", headers: headers() }));
    },
    /**
     * A PATCH whose body stops after `sent` of `body.length` announced bytes, as a dropped network
     * would: `sent` bytes go out, then, once `arrived()` says the server holds some of them (so
     * the server is inside the PATCH and holds the upload's lock), the connection is destroyed.
     * Resolves when the socket is closed.
     */
    cutPatch(id: string, offset: number, body: Uint8Array, sent: number, arrived: () => Promise<boolean>) {
      return new Promise<void>((resolve, reject) => {
        const req = request(urlOf(id), {
          method: "PATCH",
          headers: headers({ "upload-offset": String(offset), "content-type": "application/offset+octet-stream", "content-length": String(body.length) }),
        });
        req.on("error", () => resolve());
        req.on("close", () => resolve());
        req.on("response", (res) => res.resume());
        req.write(body.subarray(0, sent), async () => {
          for (let i = 0; !(await arrived()); i++) {
            if (i > 2000) return reject(new Error("the server never stored a byte of the cut PATCH"));
            await new Promise((r) => setTimeout(r, 5));
          }
          req.destroy();
        });
      });
    },
  };
}

export async function blake3Hex(data: Uint8Array): Promise<string> {
  const hasher = await createBLAKE3(256);
  hasher.init();
  hasher.update(data);
  return hasher.digest("hex");
}
