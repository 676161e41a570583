import * as z from "zod";
import { envelopeSchema } from "../../contract/envelope";
import { ErrorCode, errorByCode } from "../../contract/errors";
import { FILE_SERVER_PATHS, UPLOAD_BATCH, uploadBatchHeader, uploadBatchResult, uploadMetadata } from "../../contract/files";
import { CHUNK_HEADER, CHUNKS_EXTENSION, ferryRangesHeader, MAX_RANGES, RANGES_HEADER } from "../../contract/upload-chunks";
import { P2P_RELAY } from "../../contract/p2p";
import { EXTENSIONS } from "../uploads/store";

/**
 * The file server's HTTP endpoints in the OpenAPI document (docs/file-server.md, "Uploads" and
 * "Downloads and previews"): tus uploads with Ferry's extensions (parallel chunks, batches) and the
 * signed ranged download. They answer on the file server's port, not the API's, so every path item
 * carries its own `servers`. Bodies and headers use the contract's schemas (contract/files.ts,
 * contract/upload-chunks.ts), the codes the catalogue's (contract/errors.ts).
 */

export const FILE_SERVER_TAG = "file-server";

export interface ServerEntry {
  url: string;
  description: string;
}

const METHODS = ["options", "head", "get", "post", "patch", "delete"] as const;
const json = (schema: z.ZodType, io: "input" | "output") => z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Record<string, unknown>;
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** Schemas the file-server operations refer to, for `components.schemas`. */
export function fileServerSchemas(): Record<string, unknown> {
  return {
    ErrorEnvelope: json(envelopeSchema(z.unknown()), "output"),
    UploadMetadata: { ...json(uploadMetadata, "input"), description: "The decoded `Upload-Metadata` of a tus creation (each value base64 in the header)." },
    UploadBatchHeader: json(uploadBatchHeader, "input"),
    UploadBatchReply: json(envelopeSchema(z.object({ files: z.array(uploadBatchResult) })), "output"),
    FerryRanges: { ...json(ferryRangesHeader, "output"), description: `\`${RANGES_HEADER}\`: every stored range, merged and sorted, \`start-end\` with inclusive ends (as HTTP Range), comma separated; empty when nothing is stored.` },
  };
}

/** A refusal: its HTTP status and the catalogue codes it carries, each with why. */
type Refusals = Record<number, [code: number, why: string][]>;

function responses(ok: Record<string, unknown>, refusals: Refusals, body = true) {
  const out: Record<string, unknown> = { ...ok };
  for (const [status, codes] of Object.entries(refusals)) {
    const lines = codes.map(([code, why]) => `- ${code} ${errorByCode(code)?.value ?? ""}: ${why}`);
    out[status] = {
      description: `Refused. ${body ? "The body is the JSON envelope (translated by Accept-Language); codes:" : "No body (a HEAD answer); the status says which:"}\n${lines.join("\n")}`,
      ...(body ? { content: { "application/json": { schema: ref("ErrorEnvelope") } } } : {}),
    };
  }
  return out;
}

const header = (name: string, description: string, schema: Record<string, unknown> = { type: "string" }, required = false) => ({ name, in: "header", required, description, schema });
const responseHeader = (description: string, schema: Record<string, unknown> = { type: "string" }) => ({ description, schema });
const uploadId = { name: "id", in: "path", required: true, description: "The upload's id (32 hex digits), from the creation's `Location`.", schema: { type: "string", pattern: "^[0-9a-f]{32}$" } };
const tusResumable = header("Tus-Resumable", "tus protocol version.", { type: "string", const: "1.0.0" }, true);

const AUTH: Refusals = {
  401: [[ErrorCode.InvalidToken, "missing or invalid token"]],
};
const OWNED: Refusals = {
  ...AUTH,
  403: [[ErrorCode.PermissionDenied, "not the caller's upload"]],
  404: [[ErrorCode.UploadNotFound, "unknown, expired (24 h after creation) or terminated upload"]],
};
/** A PATCH also checks the Upload permission again (tus.ts). */
const OWNED_PATCH: Refusals = { ...OWNED, 403: [[ErrorCode.PermissionDenied, "not the caller's upload, or the Upload permission (or the group membership) is gone"]] };

/** The file server's paths, each answering on `servers` (the plain port 2480 and, with TLS, 2481). */
export function fileServerPaths(servers: ServerEntry[]): Record<string, Record<string, unknown>> {
  const common = { servers };
  const secured = { security: [{ socketToken: [] }] };
  const uploads = FILE_SERVER_PATHS.uploads;

  const paths: Record<string, Record<string, unknown>> = {
    [uploads]: {
      ...common,
      options: {
        summary: "tus discovery (and CORS preflight): the extensions offered.",
        description: `\`Tus-Extension\` lists exactly ${EXTENSIONS.map((e) => `\`${e}\``).join(", ")}. Not concatenation (see docs/file-server.md, "No tus concatenation"), not deferred length.`,
        responses: {
          "204": {
            description: "What the server offers.",
            headers: {
              "Tus-Version": responseHeader("Supported tus versions.", { type: "string", const: "1.0.0" }),
              "Tus-Extension": responseHeader("Comma-separated extensions.", { type: "string", const: EXTENSIONS.join(",") }),
            },
          },
        },
      },
      post: {
        ...secured,
        summary: "tus creation (with optional first bytes).",
        description:
          "Creates an upload of `Upload-Length` bytes for the file at the metadata's `path`. Checked here, in order: the Upload permission on the space, the path, the size against the server's limit, the target (exists without overwrite, a folder in the way, upload rules, file filter), the quota (the size is reserved). A body (`Content-Type: application/offset+octet-stream`) stores the first bytes at once. The file appears at its path only after the socket's `commit`. `Upload-Concat` (tus concatenation) is refused with 501.",
        parameters: [
          tusResumable,
          header("Upload-Length", "The file's size in bytes (deferred length is not offered).", { type: "integer", minimum: 0 }, true),
          header("Upload-Metadata", "Comma-separated `key base64(value)` pairs; decoded, see the UploadMetadata schema.", { type: "string" }, true),
          header("Upload-Concat", "Not offered: any value is refused with 501, code 4175.", { type: "string" }),
        ],
        requestBody: { required: false, content: { "application/offset+octet-stream": { schema: { type: "string", format: "binary" } } } },
        "x-upload-metadata": ref("UploadMetadata"),
        responses: responses(
          {
            "201": {
              description: "Created.",
              headers: {
                Location: responseHeader("`/uploads/<id>` (relative)."),
                "Upload-Offset": responseHeader("Bytes stored (with a body).", { type: "integer" }),
                "Upload-Expires": responseHeader("When an unfinished upload is removed (RFC 9110 date)."),
              },
            },
          },
          {
            400: [
              [ErrorCode.InvalidPath, "a path segment is not a valid name"],
              [ErrorCode.PathExists, "something exists at the path (without overwrite)"],
              [ErrorCode.QuotaExceeded, "past the space's quota (`data.used`, `quota`, `needed`)"],
              [ErrorCode.FileFormatRefused, "a file format the user's rule refuses"],
              [ErrorCode.FileFiltered, "a file the space's transfer filter skips"],
              [ErrorCode.ParameterError, "not a valid tus request or metadata"],
            ],
            ...AUTH,
            403: [[ErrorCode.PermissionDenied, "no Upload permission (or Delete for an overwrite, Mkdir for missing folders)"]],
            413: [
              [ErrorCode.FileTooLarge, "larger than the server's file size limit (`data.limit` bytes)"],
              [ErrorCode.UploadPartTooLarge, "the body is over the part size (`data.limit`), judged from Content-Length"],
            ],
            429: [[ErrorCode.UploadsBusy, "this sign-in already has `parallelUploads` files receiving bytes (`Retry-After: 1`, `data.max`)"]],
            503: [[ErrorCode.UploadMemoryFull, "into object storage: the engine's memory for parts being filled (`FERRY_UPLOAD_BUFFER_BYTES`) is taken; nothing of the body was kept (`Retry-After: 1`)"]],
            501: [[ErrorCode.UnsupportedOperation, "`Upload-Concat` (tus concatenation is not offered; send Ferry chunks)"]],
          },
        ),
      },
    },
    [`${uploads}{id}`]: {
      ...common,
      parameters: [uploadId],
      head: {
        ...secured,
        summary: "tus offset, and Ferry's stored ranges.",
        description: `\`Upload-Offset\` is the contiguous prefix stored from byte 0 (what a plain tus client resumes from); \`${RANGES_HEADER}\` lists every stored range (${CHUNKS_EXTENSION}), so a client sends only the gaps.`,
        parameters: [tusResumable],
        responses: responses(
          {
            "200": {
              description: "The upload's state.",
              headers: {
                "Upload-Offset": responseHeader("Contiguous bytes stored from 0.", { type: "integer" }),
                "Upload-Length": responseHeader("The declared size.", { type: "integer" }),
                [RANGES_HEADER]: { description: "Every stored range, inclusive ends.", schema: ref("FerryRanges") },
                "Upload-Expires": responseHeader("When the upload is removed if not committed."),
              },
            },
          },
          OWNED,
          false,
        ),
      },
      patch: {
        ...secured,
        summary: "tus PATCH, or a Ferry chunk written at its offset (`Ferry-Chunk: 1`).",
        description: [
          "**Plain tus** (no `Ferry-Chunk`): the body is appended at `Upload-Offset`, which must equal the stored offset (409 otherwise); refused with 409 while chunks are in flight or stored past the prefix.",
          `**Ferry chunk** (\`${CHUNK_HEADER}: 1\`, extension \`${CHUNKS_EXTENSION}\`): the body is written at \`Upload-Offset\` = its start byte, anywhere inside \`Upload-Length\`, any number at once over parallel connections, each byte once, in place (no copy at the end). \`Content-Length\` is required. A chunk announces \`[start, start+length)\` and is refused before its body is used when that range touches a stored range or a chunk in flight (409), ends past \`Upload-Length\` (413), or would make more than ${MAX_RANGES} separate ranges (409). Every such 4179 carries \`data.reason\` and \`data.ranges\` (as \`${RANGES_HEADER}\`). After a dropped connection, what arrived is kept: ask HEAD and send the rest.`,
          "Every PATCH: the Upload permission is checked again, the part size and parallel uploads apply (the chunks of one file are one file), and the owner's speed limit.",
        ].join("\n\n"),
        parameters: [
          tusResumable,
          header("Upload-Offset", "Plain: the stored offset. Chunk: the chunk's first byte.", { type: "integer", minimum: 0 }, true),
          header(CHUNK_HEADER, "`1`: a Ferry chunk, written at `Upload-Offset`.", { type: "string", const: "1" }),
          header("Content-Length", "The body's length; required for a chunk (411 without).", { type: "integer", minimum: 0 }),
        ],
        requestBody: { required: true, content: { "application/offset+octet-stream": { schema: { type: "string", format: "binary" } } } },
        responses: responses(
          {
            "204": {
              description: "Stored.",
              headers: {
                "Upload-Offset": responseHeader("Plain: the new offset. Chunk: the contiguous prefix from 0.", { type: "integer" }),
                [RANGES_HEADER]: { description: "(chunks) Every stored range, inclusive ends.", schema: ref("FerryRanges") },
                "Upload-Expires": responseHeader("When the upload is removed if not committed."),
              },
            },
          },
          {
            400: [[ErrorCode.ParameterError, "a chunk without Upload-Offset or `Content-Type: application/offset+octet-stream`"]],
            ...OWNED_PATCH,
            409: [[ErrorCode.InvalidData, "Upload-Offset is not the stored offset (plain); the chunk overlaps stored bytes or a chunk in flight, or would make too many ranges; a plain PATCH while chunks are stored past the prefix or in flight"]],
            411: [[ErrorCode.InvalidData, "a chunk without Content-Length"]],
            413: [
              [ErrorCode.InvalidData, "the bytes go past `Upload-Length`"],
              [ErrorCode.UploadPartTooLarge, "the body is over the part size (`data.limit`)"],
            ],
            429: [[ErrorCode.UploadsBusy, "another file would exceed `parallelUploads` (`Retry-After: 1`)"]],
            503: [[ErrorCode.UploadMemoryFull, "into object storage: the engine's memory for parts being filled (`FERRY_UPLOAD_BUFFER_BYTES`) is taken; nothing of the body was kept (`Retry-After: 1`)"]],
          },
        ),
      },
      delete: {
        ...secured,
        summary: "tus termination: removes the upload and ends its quota reservation.",
        parameters: [tusResumable],
        responses: responses({ "204": { description: "Removed." } }, OWNED),
      },
    },
    [UPLOAD_BATCH.path]: {
      ...common,
      post: {
        ...secured,
        summary: "Small files in one request (Ferry extension): each checked, hashed and placed on its own.",
        description: [
          "The body, with no padding: **4 bytes** the header length `H` (unsigned 32-bit big-endian, 1 ≤ H ≤ " +
            `${UPLOAD_BATCH.maxHeaderBytes}); **H bytes** the UTF-8 JSON header (schema UploadBatchHeader: 1–${UPLOAD_BATCH.maxFiles} files of at most ${UPLOAD_BATCH.maxFileBytes} bytes); then **the files' bytes** back to back in the header's order. \`Content-Length\` (required) = 4 + H + the sizes, at most ${UPLOAD_BATCH.maxBytes} bytes and at most the part size when one is set.`,
          "Each file is checked (path, Upload permission, hash while the hash check is on, size, target, rules, filter, quota), its bytes hashed as they arrive, and placed durably as a commit places it; a refused file does not stop the others. After a dropped connection the files fully received stay placed. Share visitors cannot use batches (401).",
        ].join("\n\n"),
        parameters: [header("Content-Length", "4 + H + the sum of the sizes.", { type: "integer", minimum: 4, maximum: UPLOAD_BATCH.maxBytes }, true)],
        requestBody: { required: true, content: { "application/octet-stream": { schema: { type: "string", format: "binary" } } } },
        "x-batch-header": ref("UploadBatchHeader"),
        responses: responses(
          { "200": { description: "One entry per header entry, in order: placed (`ok: true`) or refused with its own code and translated message.", content: { "application/json": { schema: ref("UploadBatchReply") } } } },
          {
            400: [
              [ErrorCode.InvalidData, "Content-Length is not 4 + H + the sizes (`data.expected`)"],
              [ErrorCode.ParameterError, "the header is not JSON or not the schema"],
            ],
            ...AUTH,
            411: [[ErrorCode.InvalidData, "no Content-Length"]],
            413: [
              [ErrorCode.UploadPartTooLarge, `Content-Length over ${UPLOAD_BATCH.maxBytes} bytes or the part size (\`data.limit\`)`],
              [ErrorCode.InvalidData, "H out of range, too many files, or a file too large for a batch"],
            ],
            429: [[ErrorCode.UploadsBusy, "this sign-in already has `parallelUploads` files receiving bytes (`Retry-After: 1`)"]],
          },
        ),
      },
    },
    [`${FILE_SERVER_PATHS.downloads}{ticket}/{name}`]: {
      ...common,
      parameters: [
        { name: "ticket", in: "path", required: true, description: "The signed ticket of the socket's `download` command (its `url`); valid for any number of requests until it expires.", schema: { type: "string" } },
        { name: "name", in: "path", required: true, description: "Only for the browser; what is served comes from the ticket.", schema: { type: "string" } },
      ],
      get: {
        summary: "Signed download: one file with a single Range, or a zip of a folder or selection.",
        description:
          "Every request re-checks the ticket's signature and expiry, the sign-in, the Download permission and the paths. One file: a single `Range` (`bytes=a-b`, `a-`, `-n`) answers 206; several ranges, garbage, or an `If-Range` other than the current ETag or Last-Modified answer 200 with the whole file. Refusals are `text/plain` in the request's language. Web origins get CORS (`Content-Range`, `Content-Length`, `ETag`, `Accept-Ranges` exposed), never credentials.",
        parameters: [header("Range", "One byte range, `bytes=a-b`, `bytes=a-` or `bytes=-n`."), header("If-Range", "The ETag (strong) or Last-Modified the client's bytes came from.")],
        responses: {
          "200": { description: "The whole file (or the zip).", headers: { ETag: responseHeader('`"<size hex>-<mtime hex>"`'), "Accept-Ranges": responseHeader("`bytes`") }, content: { "application/octet-stream": { schema: { type: "string", format: "binary" } }, "application/zip": { schema: { type: "string", format: "binary" } } } },
          "206": { description: "The range asked (`b` past the end is clamped).", headers: { "Content-Range": responseHeader("`bytes a-b/size`") }, content: { "application/octet-stream": { schema: { type: "string", format: "binary" } } } },
          "403": { description: "Bad signature, format or kind; the sign-in ended; no Download permission any more.", content: { "text/plain": { schema: { type: "string" } } } },
          "404": { description: "A path no longer resolves.", content: { "text/plain": { schema: { type: "string" } } } },
          "410": { description: "The ticket expired: ask the socket for a new URL.", content: { "text/plain": { schema: { type: "string" } } } },
          "416": { description: "The first byte is at or past the end (`Content-Range: bytes */size`), or the range is invalid.", headers: { "Content-Range": responseHeader("`bytes */size`") } },
        },
      },
    },
    [`${P2P_RELAY.path}{transferId}/{file}`]: relayPaths(common, secured),
  };
  for (const item of Object.values(paths)) {
    for (const method of METHODS) if (item[method]) item[method] = { tags: [FILE_SERVER_TAG], ...(item[method] as object) };
  }
  return paths;
}

/** The P2P relay (server/p2p/relay.ts, docs/p2p.md "Relay and hand-over"): a file of an accepted transfer, held by the engine on its way. */
function relayPaths(common: Record<string, unknown>, secured: Record<string, unknown>): Record<string, unknown> {
  const offset = P2P_RELAY.offsetHeader;
  const size = P2P_RELAY.sizeHeader;
  const held = responseHeader("The bytes the engine holds of the file.", { type: "integer", minimum: 0 });
  const party: Refusals = {
    ...AUTH,
    400: [
      [ErrorCode.P2pOff, "P2P is switched off"],
      [ErrorCode.P2pPathOff, "the relay is switched off in the P2P settings"],
      [ErrorCode.ParameterError, "no such file in the transfer, or the entry is a folder"],
    ],
    404: [[ErrorCode.P2pNoSuchTransfer, "no such transfer, or the caller is not the party this method is for (the same answer, so ids cannot be probed)"]],
    409: [[ErrorCode.P2pWrongState, "the transfer is not accepted or running (ended: its held bytes are gone)"]],
  };
  return {
    ...common,
    parameters: [
      { name: "transferId", in: "path", required: true, description: "The transfer's id (uuid).", schema: { type: "string", format: "uuid" } },
      { name: "file", in: "path", required: true, description: "The file's index in the offer (`p2pFiles` order, from 0).", schema: { type: "integer", minimum: 0 } },
    ],
    head: {
      ...secured,
      summary: "What the relay holds of a file (the sender or the receiver user).",
      responses: responses({ "200": { description: "No body.", headers: { [offset]: held, [size]: responseHeader("The file's size in the offer.", { type: "integer", minimum: 0 }) } } }, party, false),
    },
    patch: {
      ...secured,
      summary: `Appends to a file at \`${offset}\` (the transfer's sender user).`,
      description: [
        `\`${offset}\` must be the bytes held (else 409 with \`${offset}\` of what is held); \`Content-Length\` is required and the body may not end past the file's size. The caps are checked before a byte is read and again as the body lands: a PATCH reserves at most \`FERRY_P2P_RELAY_WINDOW_BYTES\` ahead of what it wrote, grown as bytes land; the settings' \`maxTransferBytes\` for the transfer's held bytes (413), \`FERRY_P2P_RELAY_MAX_BYTES\` for the whole engine and ${P2P_RELAY.userShare * 100} % of it for one sender user (507, \`Retry-After\`), all 4703 (a PATCH that cannot grow its window ends with what it wrote). A body that sends nothing for \`FERRY_P2P_RELAY_IDLE\` seconds is stopped (408, 4184) with what arrived held.`,
        "Bytes are kept as they land: a body cut short keeps what arrived and the client resumes from HEAD's offset; a newer PATCH of the same file stops one still writing. The sender user's upload speed limit applies. Progress shows as path `relay` on the transfer. At the file's size the engine computes its BLAKE3 and compares it with the sender's (`p2pFileDone`), now or when it is reported: another hash answers 4706, the held bytes are deleted and the file is sent again from 0.",
      ].join("\n\n"),
      parameters: [header(offset, "The bytes held (HEAD).", { type: "integer", minimum: 0 }, true), header("Content-Length", "The body's length.", { type: "integer", minimum: 0 }, true)],
      requestBody: { required: true, content: { "application/octet-stream": { schema: { type: "string", format: "binary" } } } },
      responses: responses(
        { "204": { description: "Written.", headers: { [offset]: held } } },
        {
          ...party,
          409: [
            [ErrorCode.InvalidData, `\`${offset}\` is not the bytes held (\`${offset}\` says them), or a newer PATCH took over`],
            [ErrorCode.P2pWrongState, "the transfer is not accepted or running"],
            [ErrorCode.P2pHashMismatch, "the whole file's BLAKE3 is not the sender's: the held bytes are deleted"],
          ],
          411: [[ErrorCode.InvalidData, "no Content-Length"]],
          413: [
            [ErrorCode.InvalidData, "the body would end past the file's size"],
            [ErrorCode.P2pRelayFull, "the transfer's held bytes would pass the settings' `maxTransferBytes`"],
          ],
          507: [[ErrorCode.P2pRelayFull, "the engine's held bytes would pass `FERRY_P2P_RELAY_MAX_BYTES`, or the sender user's share of it (`Retry-After`)"]],
          408: [[ErrorCode.ClientTimeout, "the body sent nothing for `FERRY_P2P_RELAY_IDLE` seconds: what arrived is held (`" + offset + "`)"]],
        },
      ),
    },
    get: {
      ...secured,
      summary: "Reads a held file (the transfer's receiver user), waiting for the bytes the sender is still writing.",
      description: `One \`Range\` (as the signed download). \`Content-Length\` is of the range of the file's whole size: bytes not held yet are waited for; ${P2P_RELAY.idleMs / 1000} s with nothing new ends the response short (the connection closes) and the receiver resumes by Range. The receiver user's download speed limit applies.`,
      parameters: [header("Range", "One byte range, `bytes=a-b`, `bytes=a-` or `bytes=-n`, of the file's size.")],
      responses: {
        ...responses(
          {
            "200": { description: "The whole file.", headers: { [size]: responseHeader("The file's size.") }, content: { "application/octet-stream": { schema: { type: "string", format: "binary" } } } },
            "206": { description: "The range asked.", headers: { "Content-Range": responseHeader("`bytes a-b/size`") }, content: { "application/octet-stream": { schema: { type: "string", format: "binary" } } } },
          },
          { ...party, 429: [[ErrorCode.P2pRelayFull, `the receiver user has ${P2P_RELAY.getsPerUser} relay reads open (\`Retry-After\`)`]] },
        ),
        "416": { description: "The first byte is at or past the file's size, or the range is invalid.", headers: { "Content-Range": responseHeader("`bytes */size`") } },
      },
    },
  };
}
