import * as z from "zod";
import { p2pCommands, p2pEvents, type P2pResults } from "./p2p";
import type { ShareLoginData } from "./share-files";
import type { UploadRules } from "./upload-rules";

/**
 * The file server's contract (docs/file-server.md): WebSocket commands, upload metadata, download
 * tickets. Shared by the engine (validation) and the web client (the socket module, the dialogs).
 * Paths are user paths inside a space ("/", "/docs/a.txt"); the engine confines them
 * (server/storage/paths.ts). groupId 0 is the personal space; any other id is a group space.
 */

export const FILE_TYPES = ["File", "Folder", "VirtualFolder"] as const;
export type FileType = (typeof FILE_TYPES)[number];

/** One row of a listing (spec section 3, file entry). */
export const fileEntry = z.object({
  name: z.string(),
  file_type: z.enum(FILE_TYPES),
  size: z.number().int().describe("Bytes; 0 for a folder."),
  time: z.number().int().describe("Modification time, unix seconds."),
});
export type FileEntry = z.infer<typeof fileEntry>;

/**
 * The reply of `list` (docs/file-server.md, "list"): a folder's entries as columns, so entry i is
 * names[i], of type FILE_TYPES[types[i]] (0 File, 1 Folder, 2 VirtualFolder), sizes[i] bytes
 * (0 for a folder) and modified at times[i] (unix seconds). Folders come first, then files, each
 * by name in code-unit order. Columns rather than one object per entry: a folder of 100,000 files
 * is 3 MB of JSON instead of 7, and far cheaper to build, send and parse.
 */
export interface Listing {
  path: string;
  names: string[];
  types: number[];
  sizes: number[];
  times: number[];
}

/** The code of `type` in Listing.types. */
export const fileTypeCode = (type: FileType): number => FILE_TYPES.indexOf(type);

/** A listing as one FileEntry per entry, in the listing's order. */
export function listingEntries(listing: Listing): FileEntry[] {
  const { names, types, sizes, times } = listing;
  const entries = new Array<FileEntry>(names.length);
  for (let i = 0; i < names.length; i++) entries[i] = { name: names[i]!, file_type: FILE_TYPES[types[i]!] ?? "File", size: sizes[i]!, time: times[i]! };
  return entries;
}

/** Spec section 3, file attributes; `hash` is Ferry's (BLAKE3 of a single file, when known). */
export const fileAttributes = z.object({
  file_size: z.number().int(),
  file_count: z.number().int(),
  folder_count: z.number().int(),
  write_time: z.number().int(),
  path: z.string(),
  hash: z.string().nullable(),
});
export type FileAttributes = z.infer<typeof fileAttributes>;

/** Content hash algorithm of uploads and attributes: BLAKE3-256, lowercase hex. */
export const HASH_ALGORITHM = "blake3";
export const hashHex = z.string().regex(/^[0-9a-f]{64}$/, "64 lowercase hex digits");

const groupId = z.number().int().min(0).describe("0: personal space; otherwise a group the user belongs to.");
const userPath = z.string().max(4096);
const name = z.string().min(1).max(255);

/** Every WebSocket command: its arguments. Replies are envelopes (see socketReply). */
export const socketCommands = {
  /**
   * First message on a socket: the 128-character websocket token of the sign-in (`token`), or a
   * share link's token (`shareToken`, alone) for a visitor (docs/file-server.md, "Share visitors").
   * Exactly one of the two; the socket answers 401 when both are missing.
   */
  login: z.object({
    token: z.string().max(256).optional(),
    shareToken: z.string().max(256).optional(),
    /** A desktop client names itself (and counts toward the edition's client limit); a browser does not. */
    client: z.object({ version: z.string().min(1).max(32) }).optional(),
  }),
  list: z.object({ groupId, path: userPath }),
  mkdir: z.object({ groupId, path: userPath.describe("Parent folder."), name }),
  rename: z.object({ groupId, path: userPath.describe("The item to rename."), newName: name }),
  /** Which of `names` already exist in folder `target` (before a move or copy). */
  exists: z.object({ groupId, target: userPath, names: z.array(name).max(10_000) }),
  move: z.object({ groupId, paths: z.array(userPath).min(1).max(10_000), target: userPath.describe("Destination folder."), overwrite: z.boolean().default(false) }),
  copy: z.object({ groupId, paths: z.array(userPath).min(1).max(10_000), target: userPath.describe("Destination folder."), overwrite: z.boolean().default(false) }),
  remove: z.object({ groupId, paths: z.array(userPath).min(1).max(10_000) }),
  attributes: z.object({ groupId, paths: z.array(userPath).min(1).max(10_000) }),
  /** Sub-folders of `path`, for the folder tree of the move/copy dialog. */
  tree: z.object({ groupId, path: userPath }),
  search: z.object({ groupId, path: userPath, keyword: z.string().min(1).max(255), limit: z.number().int().min(1).max(1000).default(200) }),
  /** A short-lived signed URL that downloads one file, or several items / a folder as one zip. */
  download: z.object({ groupId, paths: z.array(userPath).min(1).max(10_000) }),
  /** A short-lived signed URL that shows an image or PDF inline (Download permission; edition rule). */
  preview: z.object({ groupId, path: userPath }),
  /**
   * A short-lived signed base URL for the thumbnails of the images in folder `path`: append a file's
   * name (percent-encoded) to fetch its thumbnail (same rules as preview; docs/file-server.md, "Thumbnails").
   */
  thumbnails: z.object({ groupId, path: userPath.describe("The folder.") }),
  /** Finishes a tus upload whose bytes have all arrived: checks the hash, places the file. */
  // hash may be left out only while the server's hash check (transfer settings cHashVerifySwitch) is off.
  commit: z.object({ uploadId: z.string().min(1).max(200), hash: hashHex.optional() }),
  /** What the caller may upload into the space now: permission, quota, format and new-only rules (contract/upload-rules.ts). */
  uploadRules: z.object({ groupId }),
  /** Point to point (contract/p2p.ts, docs/p2p.md). */
  ...p2pCommands,
} as const;
export type SocketCommand = keyof typeof socketCommands;
export type SocketArgs<C extends SocketCommand> = z.input<(typeof socketCommands)[C]>;

/** Client → server. `id` pairs the reply with its request. */
export const socketRequest = z.object({ id: z.number().int().min(0), cmd: z.string().max(32), args: z.unknown() });
export type SocketRequest = z.infer<typeof socketRequest>;

/** Server → client: the REST envelope plus the request's id. */
export interface SocketReply<T = unknown> {
  id: number;
  code: number;
  value: string;
  result: boolean;
  message: string;
  data: T;
}

/**
 * Server → client, unasked: an event for the signed-in user of the socket (docs/file-server.md,
 * "Events"). It has no `id`, which tells it from a reply.
 */
export const socketEvent = z.discriminatedUnion("event", [
  z.object({
    event: z.literal("notice"),
    data: z.object({ unreadCount: z.number().int().min(0).describe("The user's unread notifications after the change.") }),
  }),
  /** Point to point: to one device's socket only (docs/p2p.md). */
  ...p2pEvents,
]);
export type SocketEvent = z.infer<typeof socketEvent>;

/** Reply data per command. */
export interface SocketResults {
  login: { account: string; userId: number } | ShareLoginData;
  list: Listing;
  mkdir: { path: string };
  rename: { path: string };
  exists: { existing: string[] };
  /** Items that failed carry their code; the rest are done. */
  move: { done: string[]; failed: { path: string; code: number }[] };
  copy: { done: string[]; failed: { path: string; code: number }[] };
  remove: { done: string[]; failed: { path: string; code: number }[] };
  attributes: FileAttributes;
  tree: { path: string; folders: { name: string; path: string }[] };
  search: { entries: (FileEntry & { path: string })[]; truncated: boolean };
  download: { url: string; name: string };
  preview: { url: string; mediaType: string };
  /** Ends with "/": `url + encodeURIComponent(name)` is the thumbnail of `name` in the folder. */
  thumbnails: { url: string };
  commit: { path: string; size: number; hash: string };
  uploadRules: UploadRules;
  p2pRegister: P2pResults["p2pRegister"];
  p2pReceive: P2pResults["p2pReceive"];
  p2pOffer: P2pResults["p2pOffer"];
  p2pAnswer: P2pResults["p2pAnswer"];
  p2pSignal: P2pResults["p2pSignal"];
  p2pProgress: P2pResults["p2pProgress"];
  p2pFileDone: P2pResults["p2pFileDone"];
  p2pEnd: P2pResults["p2pEnd"];
  p2pFiles: P2pResults["p2pFiles"];
}

/**
 * Largest WebSocket message the server accepts. The socket carries commands, never file bytes: the
 * largest is a selection of up to 10,000 paths (about 200 bytes each fit). A bigger frame closes that
 * socket (1009) before it is buffered whole; other sockets are untouched.
 */
export const SOCKET_MAX_MESSAGE = 2 * 1024 * 1024;

/** The file server's HTTP paths. */
export const FILE_SERVER_PATHS = {
  socket: "/ws",
  /** tus 1.0 endpoint (creation, creation-with-upload, termination). */
  uploads: "/uploads/",
  downloads: "/download/",
  previews: "/preview/",
  thumbnails: "/thumbnail/",
  health: "/health",
} as const;

/**
 * Small files in batches (docs/file-server.md, "Small files in batches (Ferry extension)"):
 * `POST /uploads/batch` with a body of a 4-byte big-endian header length, the JSON header
 * (`uploadBatchHeader`) and the files' bytes back to back in the header's order.
 */
export const UPLOAD_BATCH = {
  path: "/uploads/batch",
  /** Largest body (also at most the Transfer protocol's part size when that is set). */
  maxBytes: 32 * 1024 * 1024,
  maxFiles: 1000,
  /** Largest file in a batch; larger files go by tus. */
  maxFileBytes: 4 * 1024 * 1024,
  maxHeaderBytes: 64 * 1024,
} as const;

export const uploadBatchHeader = z.object({
  files: z
    .array(
      z.object({
        groupId: z.number().int().min(0),
        path: userPath.min(1),
        size: z.number().int().min(0).max(UPLOAD_BATCH.maxFileBytes),
        overwrite: z.boolean().default(false),
        hash: z.string().regex(/^[0-9a-f]{64}$/).optional(),
      }),
    )
    .min(1)
    .max(UPLOAD_BATCH.maxFiles),
});
export type UploadBatchHeader = z.infer<typeof uploadBatchHeader>;

/** One file's answer in a batch's reply: placed, or refused with its own code and translated message. */
export const uploadBatchResult = z.discriminatedUnion("ok", [
  z.object({ path: z.string(), ok: z.literal(true), size: z.number().int().min(0), hash: z.string() }),
  z.object({ path: z.string(), ok: z.literal(false), code: z.number().int(), message: z.string(), data: z.unknown() }),
]);
export type UploadBatchResult = z.infer<typeof uploadBatchResult>;

/**
 * tus Upload-Metadata keys of a Ferry upload. `path` is the final path of the file (folder uploads
 * send each file's path with its sub-folders; missing folders are created at commit). `overwrite`
 * "1" replaces an existing file.
 */
export const uploadMetadata = z.object({
  groupId: z.coerce.number().int().min(0),
  path: userPath.min(1),
  overwrite: z.enum(["0", "1"]).default("0"),
  filetype: z.string().max(255).optional(),
});
export type UploadMetadata = z.infer<typeof uploadMetadata>;

/** Media types shown inline by preview (spec section 3); anything else is not previewable. */
export const PREVIEW_MEDIA_TYPES: Record<string, string> = {
  pdf: "application/pdf",
  svg: "image/svg+xml",
  ico: "image/x-icon",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  bmp: "image/bmp",
};

/**
 * Raster image types the engine makes thumbnails of (docs/file-server.md, "Thumbnails"), by
 * extension; the engine also checks the file's first bytes. Never SVG or another vector format.
 */
export const THUMBNAIL_EXTENSIONS: readonly string[] = ["jpg", "jpeg", "png", "webp", "gif", "avif", "tif", "tiff"];
/** The longest side of a thumbnail, in pixels. */
export const THUMBNAIL_SIZE = 256;
export const hasThumbnail = (fileName: string) => THUMBNAIL_EXTENSIONS.includes(extensionOf(fileName));

export type PreviewKind = "Cad" | "Image" | "Office" | "Video" | "Pdf" | "Unknown";
const PREVIEW_KINDS: [PreviewKind, string[]][] = [
  ["Cad", ["dwg", "ocf"]],
  ["Image", ["png", "ico", "svg", "jpg", "jpeg", "bmp", "gif"]],
  ["Office", ["doc", "docx", "ppt", "pptx", "xls", "xlsx", "csv"]],
  ["Video", ["mp4", "avi", "mov", "mpg"]],
  ["Pdf", ["pdf"]],
];

export function extensionOf(fileName: string): string {
  const dot = fileName.lastIndexOf(".");
  return dot > 0 ? fileName.slice(dot + 1).toLowerCase() : "";
}

/** Spec section 3, preview types by extension. */
export function previewKind(fileName: string): PreviewKind {
  const ext = extensionOf(fileName);
  return PREVIEW_KINDS.find(([, exts]) => exts.includes(ext))?.[0] ?? "Unknown";
}
