import type { Readable, Writable } from "node:stream";
import { FerryError } from "../errors";
import type { WalkOptions } from "./walk";

/**
 * Where a space's files live. The local-directory driver (local.ts) is the only one today; object
 * storage comes later, so the interface speaks in relative paths and streams and never promises
 * that a path is a local file. Every method resolves its paths through resolveUserPath
 * (paths.ts) itself, so no caller can skip the confinement. See docs/storage.md.
 */

export type EntryType = "file" | "folder";

export interface Entry {
  name: string;
  type: EntryType;
  /** Bytes for a file; 0 for a folder (see usage() for a folder's content). */
  size: number;
  /** Last modification, unix seconds. */
  mtime: number;
  /**
   * Set on a listed symbolic link (it stays inside the root, and type, size and time are its
   * target's): folder walks do not follow it, and checks look at `target`, the canonical path.
   */
  link?: { target: string };
}

export interface StatResult extends Entry {
  /** The normalised relative path ("/" for the root, whose name is ""). */
  path: string;
}

export interface Usage {
  /** Bytes held in files below the path (the path itself when it is a file). */
  size: number;
  files: number;
  /** Folders below the path, not counting the path itself. */
  folders: number;
}

export interface OverwriteOption {
  /**
   * Replace an existing target of the same type (a folder target is replaced as a whole, not
   * merged). Without it an existing target fails with PathExists.
   */
  overwrite?: boolean;
}

/** Inclusive byte offsets, as in an HTTP Range header and fs.createReadStream. */
export interface ReadRange {
  start?: number;
  end?: number;
  /** Bytes per read (default STREAM_BUFFER); each open stream holds up to about twice this. */
  bufferSize?: number;
}

/** Reads of one opened file into buffers the caller owns, so a sender can reuse them. */
export interface FileReader {
  /** Bytes in the file when it was opened. */
  readonly size: number;
  /** Reads up to `length` bytes at `position` into `buffer` (from its start); 0 at the end of the file. */
  read(buffer: Uint8Array, length: number, position: number): Promise<number>;
  close(): Promise<void>;
}

export interface WriteOptions extends OverwriteOption {
  /** Refuse with QuotaExceeded (and drop the temporary data) once more bytes than this arrive. */
  maxBytes?: number;
}

/**
 * An upload in progress. Bytes go to temporary data outside the visible tree; the final path
 * appears only at commit(), complete, or never.
 */
export interface Writer {
  /** The normalised final relative path. */
  readonly path: string;
  readonly bytesWritten: number;
  /**
   * A writable for `pipeline(source, writer.stream)`. Ending it does not commit; call commit()
   * afterwards.
   */
  readonly stream: Writable;
  /** Writes one chunk, honouring back-pressure. */
  write(chunk: Uint8Array): Promise<void>;
  /**
   * Makes the data durable and moves it to the final path atomically; refuses with PathExists
   * when the target exists and the writer was not opened with overwrite (the temporary data is
   * then dropped). Parents of the final path must exist (PathNotFound otherwise).
   */
  commit(): Promise<StatResult>;
  /** Drops the temporary data. Safe to call at any time, also after a failure; idempotent. */
  abort(): Promise<void>;
}

/**
 * Complete data staged outside the storage by another component, ready to be placed by adopt().
 * Today only a file on the local disk (a tus upload); a driver that cannot take a kind refuses it.
 */
export interface StagedData {
  kind: "local-file";
  /** Absolute path; for the local driver it must be on the same file system as the root. */
  path: string;
  /** Its bytes were already fsynced by whoever staged it (adopt skips that fsync). */
  synced?: boolean;
}

export interface AdoptOptions extends OverwriteOption {
  /**
   * False: the folder's entry is not fsynced here; the caller calls syncFolder on the folder before
   * it reports the file stored (a batch syncs each folder once for all its files). Default true.
   */
  syncFolder?: boolean;
}

/**
 * One part of a resumable upload as the store holds it. Part n (from 1) is the bytes
 * [(n-1)·partSize, min(n·partSize, size)) of the file; the caller keeps the list (S3 stores without
 * ListParts cannot give it back) and hands it to complete().
 */
export interface StoredPart {
  number: number;
  /** The store's tag of the part (S3: its ETag). */
  etag: string;
  size: number;
}

/**
 * What another process needs to go on with a resumable upload (a restarted engine): plain JSON, no
 * credentials; the caller keeps it with the parts (docs/storage.md, "Resumable uploads").
 */
export interface ResumableState {
  /** The store's id of the upload (S3: its UploadId); "" for an empty file, which has no parts. */
  id: string;
  /** The normalised target path, relative to the storage that began the upload. */
  path: string;
  size: number;
  partSize: number;
}

/** An upload whose parts go straight into the store; nothing shows at the path before complete(). */
export interface ResumableUpload {
  readonly state: ResumableState;
  /**
   * Stores part `number`: exactly partSize bytes, the last part the rest (InvalidOperation for
   * another size or a number out of range). Storing a number again replaces that part.
   */
  writePart(number: number, bytes: Uint8Array): Promise<StoredPart>;
  /**
   * Places the parts (every part, in order) at the path atomically, with Writer.commit's rules:
   * PathExists unless `overwrite`, PathIsNotFile over a folder, parents must exist. A refusal keeps
   * the parts (the caller may complete again later or abort); UploadNotFound when the store no
   * longer knows the upload (completed already, aborted, expired).
   */
  complete(parts: readonly StoredPart[], options?: OverwriteOption): Promise<StatResult>;
  /** Drops the stored parts. Idempotent; a failure is logged, not thrown (a lifecycle rule clears what a store kept). */
  abort(): Promise<void>;
}

/** Resumable uploads to one path of a storage (Storage.resumable). */
export interface ResumableUploads {
  /** Bytes of every part but the last (S3: the slice size, at least 5 MiB). */
  readonly partSize: number;
  /** Starts an upload of exactly `size` bytes (FileTooLarge past the store's part limit). */
  begin(size: number): Promise<ResumableUpload>;
  /** The upload `state` describes, as begin() in this or another process gave it (InvalidOperation when it is of another path). */
  resume(state: ResumableState): ResumableUpload;
}

export interface Storage {
  stat(rel: string): Promise<StatResult>;
  /**
   * The canonical form of a path: every symbolic link resolved (realpath), relative to the root;
   * a part that does not exist yet is kept as given. InvalidPath for a link that leads out of the
   * root, dangles or lands in the staging area. Every check of a path (forbidden paths, shares)
   * looks at this form as well as at the path as sent.
   */
  resolve(rel: string): Promise<string>;
  /** The entries of a folder, by name; never the staging area, never anything that is not a file or folder. */
  list(dirRel: string): Promise<Entry[]>;
  /** Creates a folder; its parent must exist unless `recursive`. An existing path fails with PathExists (unless `recursive` and it is a folder). */
  mkdir(rel: string, options?: { recursive?: boolean }): Promise<void>;
  rename(fromRel: string, toRel: string, options?: OverwriteOption): Promise<void>;
  /**
   * Copies a file or a folder tree (links below the source are not copied); the target appears
   * only when the copy is complete, so a copy stopped at a walk limit (WalkLimit) or by its client
   * (StoppedByClient) leaves nothing.
   */
  copy(fromRel: string, toRel: string, options?: OverwriteOption & WalkOptions): Promise<void>;
  /** Removes a file or a folder tree; the path disappears at once, the bytes follow. */
  remove(rel: string): Promise<void>;
  /** The bytes of a file, or of an inclusive range of it, as a stream with 1 MiB chunks. */
  createReadStream(rel: string, range?: ReadRange): Promise<Readable>;
  /** A file opened for positional reads into the caller's buffers (downloads recycle theirs). */
  openReader(rel: string): Promise<FileReader>;
  /** Sizes below a path, without following links; bounded by the walk limits (WalkLimit, StoppedByClient). */
  usage(dirRel: string, options?: WalkOptions): Promise<Usage>;
  beginWrite(rel: string, options?: WriteOptions): Promise<Writer>;
  /**
   * Places complete staged data at `rel` as a file, atomically, consuming it (same rules as
   * Writer.commit: PathExists without overwrite, parents must exist, the name must be valid).
   * UnsupportedOperation when this driver cannot take that kind of staged data.
   */
  adopt(staged: StagedData, rel: string, options?: AdoptOptions): Promise<StatResult>;
  /**
   * Resumable uploads straight into the store at `rel`, or absent/null where uploads are staged on
   * the local disk and placed by adopt() (the local driver: its staging file already is resumable).
   * The file server streams a space's uploads through this when it is there (docs/storage.md).
   */
  resumable?(rel: string): ResumableUploads | null;
  /**
   * Sets a file's modified time (unix seconds), where the store can (the local driver); absent where
   * it cannot (S3 gives an object the time it was stored). Sync tasks keep the source's time with it.
   */
  setMtime?(rel: string, mtime: number): Promise<void>;
  /** Makes the entries of a folder durable (fsync of the folder; best effort, as after every placement). */
  syncFolder(rel: string): Promise<void>;
  /**
   * A view of this storage for one request (a batch of uploads): a folder whose every segment it
   * found to exist and to be no symbolic link is not walked again by its stat and resolve for the
   * paths directly in it; adopt walks the whole path once, just before placing, and a link found
   * there on a folder the view took for plain refuses the file (InvalidPath). Short-lived:
   * made per request, dropped with it.
   */
  cached(): Storage;
  /**
   * Removes temporary data older than `olderThanMs` left by a crash or a lost client; returns how
   * many entries went. Never auto-clean's holding folder (paths.ts, AUTOCLEAN_HOLDING): users' files.
   */
  cleanupStale(olderThanMs: number): Promise<number>;
}

/** Stream buffer size for reads and writes (STACK.md: 1 MiB buffers are ~1.5× faster than defaults). */
export const STREAM_BUFFER = 1024 * 1024;

/** What a writev of `buffers` left unwritten when it wrote only `written` bytes (a regular file rarely writes less, but may). */
export function unwritten(buffers: readonly Buffer[], written: number): Buffer[] {
  let skip = written;
  const rest: Buffer[] = [];
  for (const b of buffers) {
    if (skip >= b.length) skip -= b.length;
    else {
      rest.push(skip > 0 ? b.subarray(skip) : b);
      skip = 0;
    }
  }
  return rest;
}

const ERRNO_NAMES = {
  ENOENT: "PathNotFound",
  EEXIST: "PathExists",
  ENOTEMPTY: "PathExists",
  ENOTDIR: "PathIsFile",
  EISDIR: "PathIsNotFile",
  ENOSPC: "DiskFull",
  EDQUOT: "DiskFull",
  ENAMETOOLONG: "InvalidPath",
  ELOOP: "InvalidPath",
  EINVAL: "InvalidOperation",
  EXDEV: "UnsupportedOperation",
  EACCES: "FileSystemError",
  EPERM: "FileSystemError",
  EROFS: "FileSystemError",
  EIO: "FileSystemError",
} as const;

/**
 * The catalogue error for a file-system failure. A FerryError passes through; an unknown error
 * becomes FileSystemError. The original error rides along as `cause` for the log, never in the
 * response (it holds absolute paths).
 */
export function storageError(err: unknown): FerryError {
  if (err instanceof FerryError) return err;
  const code = typeof err === "object" && err !== null ? (err as NodeJS.ErrnoException).code : undefined;
  const name = code && code in ERRNO_NAMES ? ERRNO_NAMES[code as keyof typeof ERRNO_NAMES] : "FileSystemError";
  const mapped = new FerryError(name);
  mapped.cause = err;
  return mapped;
}
