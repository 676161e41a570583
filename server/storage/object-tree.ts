import { Readable } from "node:stream";
import { FerryError } from "../errors";
import { baseName, isUnder, joinName, parentOf, resolveUserPath } from "./paths";
import { checkNewName, checkRange, guardWith, mapFailure, mapLimit, rechunk, streamingReader, streamWriter, usableName, usableRest } from "./shared";
import {
  type Entry,
  type EntryType,
  type FileReader,
  type OverwriteOption,
  type ReadRange,
  type ResumableState,
  type StagedData,
  type StatResult,
  type Storage,
  type StoredPart,
  STREAM_BUFFER,
  type Usage,
  type Writer,
} from "./storage";
import { WalkBudget, type WalkLimits, type WalkOptions } from "./walk";

/**
 * The tree of an object store (s3.ts, azure.ts): folders over a flat key space. Keys are the
 * configured prefix plus the normalised relative path; a folder is a zero-byte marker object
 * "<key>/" (a prefix that holds objects but has no marker is a folder too). Listing, stat, mkdir,
 * rename, copy, remove, usage and reads are written here once, over the few requests a driver
 * makes (ObjectStore); each driver keeps its client, its errors, and how bytes are uploaded.
 */

/** One object as a listing gives it. */
export interface StoredObject {
  key: string;
  size: number;
  /** Unix seconds (0 when the store gave no time). */
  mtime: number;
}

/** One page of a listing; with a delimiter the deeper keys come rolled into `prefixes` ("<base>name/"). */
export interface ObjectPage {
  objects: StoredObject[];
  prefixes: string[];
}

/** An object's properties as a HEAD gives them. */
export interface ObjectHead {
  size: number;
  mtime: number;
  etag?: string;
}

/** An object's bytes from a GET, and the first offset the body holds (its Content-Range; 0 for a whole object). */
export interface ObjectBody {
  body: NodeJS.ReadableStream | Readable;
  from: number;
}

/** The requests of one object store, in its own client's words; what they throw, `toError` maps. */
export interface ObjectStore {
  /** The storage's root as a key prefix: "" or "a/b/" (shared.ts keyPrefix). */
  prefix: string;
  /** Whether a whole key (a marker's too) is within the store's limits on names. */
  keyFits(key: string): boolean;
  /** Largest object one server-side copy may copy (UnsupportedOperation above it). */
  maxCopy: number;
  /** Parallel requests of one folder copy. */
  parallel: number;
  /** Bounds of usage(), copy() and folder rename() walks when the caller gives none. */
  walk: WalkLimits;
  /** The catalogue error for any failure of the store or the network (a FerryError passes through). */
  toError(err: unknown): FerryError;
  /** The store's "no such object" (not a missing bucket or container). */
  isMissing(err: unknown): boolean;
  /** An object's properties, or null when there is none at the key. */
  head(key: string): Promise<ObjectHead | null>;
  /** The objects below `prefix`, in key order, page by page: `delimiter` rolls deeper keys into prefixes, `max` bounds a page. */
  pages(prefix: string, options?: { delimiter?: boolean; max?: number }): AsyncGenerator<ObjectPage>;
  /** Puts a zero-byte object (a folder's marker). */
  putMarker(key: string): Promise<void>;
  /** Server-side copy of one object; `ifAbsent` where the store can refuse an existing target itself (PathExists). */
  copyObject(from: string, to: string, ifAbsent: boolean): Promise<void>;
  /** Deletes one object (a missing one: S3 answers success, Azure fails with the missing error). */
  deleteObject(key: string): Promise<void>;
  /** Deletes objects in bulk; one already gone is fine. */
  deleteKeys(keys: readonly string[]): Promise<void>;
  /** The bytes of `range` (read as createReadStream's), or null when there are none (a start at or past the end). */
  read(key: string, range: ReadRange): Promise<ObjectBody | null>;
  /** The bytes start..end (inclusive) of the object as it was when its ETag was `etag`; fails once it changed (If-Match). */
  readIfMatch(key: string, etag: string | undefined, start: number, end: number): Promise<ObjectBody>;
}

export type Found = { type: "file"; size: number; mtime: number; etag?: string } | { type: "folder"; mtime: number };

interface Item {
  /** The full key. */
  key: string;
  /** The key below the walked folder ("a/b.txt", or "a/" for a marker). */
  rest: string;
  size: number;
}

/** The tree operations of a Storage that an object store answers the same way whatever its API. */
export type TreeMethods = Omit<Storage, "beginWrite" | "resumable" | "cleanupStale" | "cached">;

export function objectTree(store: ObjectStore) {
  const { prefix } = store;
  const guard = guardWith(store.toError);

  /** The normalised relative path of a user path; the same confinement as every local path (a virtual root, no disk). */
  const locate = (rel: string): string => resolveUserPath("/", rel).relative;
  const keyOf = (relative: string) => {
    const key = prefix + relative.slice(1);
    // The folder's marker is one character longer, and must fit too.
    if (!store.keyFits(`${key}/`)) throw new FerryError("InvalidPath");
    return key;
  };
  /** The key prefix of a folder's content, which is also its marker's key. */
  const dirKey = (relative: string) => (relative === "/" ? prefix : `${keyOf(relative)}/`);

  /** What is at a path: a file (an object), a folder (a marker, or objects below it), or nothing. */
  const find = async (relative: string): Promise<Found | null> => {
    if (relative === "/") return { type: "folder", mtime: 0 };
    const file = await store.head(keyOf(relative));
    if (file) return { type: "file", ...file };
    return findFolder(relative);
  };

  /** A folder: its marker, or any object below it (one request: the marker is the first key of its prefix, so its time is the folder's). */
  const findFolder = async (relative: string): Promise<Found | null> => {
    for await (const page of store.pages(dirKey(relative), { max: 1 })) {
      const first = page.objects[0];
      // A page may come back empty with a continuation (Azure may end a listing's page early).
      if (!first) continue;
      return { type: "folder", mtime: first.key === dirKey(relative) ? first.mtime : 0 };
    }
    return null;
  };

  /** The failure for a path that is not there: PathIsFile when a file stands where a folder above it should be (as ENOTDIR locally), else PathNotFound. */
  const missing = async (relative: string): Promise<never> => {
    for (let p = parentOf(relative); p !== "/"; p = parentOf(p)) {
      const found = await find(p);
      if (found?.type === "file") throw new FerryError("PathIsFile");
      if (found) break;
    }
    throw new FerryError("PathNotFound");
  };

  const mustFind = async (relative: string): Promise<Found> => (await find(relative)) ?? missing(relative);

  /** The folder a new entry goes into must exist and be a folder. */
  const checkParent = async (relative: string) => {
    const parent = parentOf(relative);
    if (parent === "/") return;
    // Folder first: the usual answer, in one request.
    if (await findFolder(parent)) return;
    if ((await mustFind(parent)).type !== "folder") throw new FerryError("PathIsFile");
  };

  const checkTypes = (source: EntryType, target: EntryType) => {
    if (source === "folder" && target !== "folder") throw new FerryError("PathIsFile");
    if (source !== "folder" && target === "folder") throw new FerryError("PathIsNotFile");
  };

  const putMarker = (relative: string) => store.putMarker(dirKey(relative));

  /** Keeps a folder that held only what was just taken out of it (it had objects but no marker). */
  const keepFolder = async (relative: string) => {
    if (relative === "/" || (await store.head(dirKey(relative)))) return;
    await putMarker(relative);
  };

  /**
   * Every key below a folder (its own marker left out), within the walk's budget: entries counted
   * per key, the depth of the deepest folder checked, the signal looked at per page. Keys Ferry
   * could not name (empty or dot segments, the reserved name) are passed over, as local walks skip
   * what they cannot use.
   */
  const walk = async (relative: string, budget: WalkBudget, onItem: (item: Item) => void): Promise<void> => {
    const base = dirKey(relative);
    budget.folder(0);
    const seen = new Set<string>();
    for await (const page of store.pages(base)) {
      budget.check();
      budget.entries(page.objects.length);
      for (const obj of page.objects) {
        const rest = obj.key.slice(base.length);
        if (rest === "" || !usableRest(rest)) continue;
        const folder = rest.slice(0, rest.lastIndexOf("/") + 1);
        if (folder && !seen.has(folder)) {
          seen.add(folder);
          budget.folder(folder.split("/").length - 1);
        }
        onItem({ key: obj.key, rest, size: obj.size });
      }
    }
  };

  const collect = async (relative: string, budget: WalkBudget): Promise<Item[]> => {
    const items: Item[] = [];
    await walk(relative, budget, (item) => items.push(item));
    return items;
  };

  /**
   * Copies a folder's objects to another folder, marker first. With `replace`, objects of the old
   * target that the copy did not overwrite go afterwards (a folder is replaced as a whole, not
   * merged). A failure while copying into a new target removes what was copied; into a replaced
   * target it leaves a mix of old and new objects (a store cannot swap a folder). Returns the source's keys.
   */
  const copyFolder = async (from: string, to: string, replace: boolean, budget: WalkBudget): Promise<string[]> => {
    const items = await collect(from, budget);
    const old = replace ? await collect(to, budget) : [];
    if (items.some((i) => i.size > store.maxCopy)) throw new FerryError("UnsupportedOperation");
    const toBase = dirKey(to);
    const written: string[] = [];
    try {
      await putMarker(to);
      written.push(toBase);
      await mapLimit(items, store.parallel, async (item) => {
        budget.check();
        const target = toBase + item.rest;
        if (!store.keyFits(target)) throw new FerryError("InvalidPath");
        await store.copyObject(item.key, target, false);
        written.push(target);
      });
    } catch (err) {
      if (!replace) await store.deleteKeys(written).catch(() => undefined);
      throw err;
    }
    const copied = new Set(items.map((i) => i.rest));
    await store.deleteKeys(old.filter((o) => !copied.has(o.rest)).map((o) => o.key));
    return [...items.map((i) => i.key), dirKey(from)];
  };

  /** The checks of a rename or copy from `from` to `to`: not into itself, a source, a parent folder, an existing target only with overwrite and of the same type. */
  const checkPlacing = async (from: string, to: string, opts: OverwriteOption): Promise<{ source: Found; existing: Found | null }> => {
    if (isUnder(to, from)) throw new FerryError("InvalidOperation");
    const source = await mustFind(from);
    await checkParent(to);
    const existing = await find(to);
    if (existing && !opts.overwrite) throw new FerryError("PathExists");
    if (existing) checkTypes(source.type, existing.type);
    return { source, existing };
  };

  /** A file's copy; a store that can, refuses a target placed since the checks (no overwrite asked, none there then). */
  const copyFile = async (from: string, to: string, size: number, existing: Found | null) => {
    if (size > store.maxCopy) throw new FerryError("UnsupportedOperation");
    await store.copyObject(keyOf(from), keyOf(to), !existing);
  };

  const fileResult = (relative: string, found: { size: number; mtime: number }): StatResult => ({ path: relative, name: baseName(relative), type: "file", size: found.size, mtime: found.mtime });

  /** What placing a file at `target` needs: its folder, and nothing there unless `overwrite` (never a folder). */
  const checkFileTarget = async (target: string, overwrite: boolean) => {
    await checkParent(target);
    const existing = await find(target);
    if (existing && !overwrite) throw new FerryError("PathExists");
    if (existing?.type === "folder") throw new FerryError("PathIsNotFile");
  };

  /** The start of every upload to `rel`: its path and key. Early refusals save an upload that could never be committed; the commit checks again. */
  const writeTarget = async (rel: string, overwrite: boolean): Promise<{ target: string; key: string }> => {
    const target = locate(rel);
    checkNewName(target);
    const key = keyOf(target);
    await checkFileTarget(target, overwrite);
    return { target, key };
  };

  const methods: TreeMethods = {
    stat: guard(async (rel: string): Promise<StatResult> => {
      const target = locate(rel);
      const found = await mustFind(target);
      return { path: target, name: baseName(target), type: found.type, size: found.type === "file" ? found.size : 0, mtime: found.mtime };
    }),

    // No links in a bucket: the canonical path is the normalised one.
    resolve: guard(async (rel: string) => locate(rel)),

    list: guard(async (dirRel: string): Promise<Entry[]> => {
      const dir = locate(dirRel);
      if ((await mustFind(dir)).type !== "folder") throw new FerryError("PathIsFile");
      const base = dirKey(dir);
      const files = new Map<string, Entry>();
      /** Sub-folders and their times: one LIST request a page, none per entry. */
      const folders = new Map<string, number>();
      for await (const page of store.pages(base, { delimiter: true })) {
        for (const obj of page.objects) {
          const rest = obj.key.slice(base.length);
          // A marker "name/" among the objects (a store that lists it there) gives the folder its time.
          if (rest.endsWith("/") && usableName(rest.slice(0, -1))) folders.set(rest.slice(0, -1), obj.mtime);
          else if (usableName(rest)) files.set(rest, { name: rest, type: "file", size: obj.size, mtime: obj.mtime });
        }
        for (const common of page.prefixes) {
          const name = common.slice(base.length, -1);
          // The store rolls a marker into its common prefix, so a folder's time is not in the listing: 0, as for a folder without a marker (stat gives the marker's).
          if (usableName(name) && !folders.has(name)) folders.set(name, 0);
        }
      }
      const entries = [...files.values()];
      // A file and a folder of one name can both exist in a bucket (not made by Ferry): the file is shown, as stat() finds it first.
      for (const [name, mtime] of folders) if (!files.has(name)) entries.push({ name, type: "folder", size: 0, mtime });
      return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    }),

    mkdir: guard(async (rel: string, opts: { recursive?: boolean } = {}) => {
      const target = locate(rel);
      if (target === "/") {
        if (opts.recursive) return;
        throw new FerryError("PathExists");
      }
      if (!opts.recursive) {
        checkNewName(target);
        keyOf(target);
        await checkParent(target);
        if (await find(target)) throw new FerryError("PathExists");
        await putMarker(target);
        return;
      }
      // Every folder this may create must carry a valid name.
      let partial = "/";
      const chain: string[] = [];
      for (const segment of target.split("/").filter(Boolean)) {
        partial = joinName(partial, segment);
        chain.push(partial);
      }
      keyOf(target);
      for (const folder of chain) {
        const found = await find(folder);
        if (found?.type === "file") throw new FerryError("PathIsFile");
        if (!found) await putMarker(folder);
      }
    }),

    rename: guard(async (fromRel: string, toRel: string, opts: OverwriteOption = {}) => {
      const from = locate(fromRel);
      const to = locate(toRel);
      if (from === "/") throw new FerryError("InvalidOperation");
      checkNewName(to);
      if (from === to) {
        await mustFind(from);
        return;
      }
      const { source, existing } = await checkPlacing(from, to, opts);
      if (source.type === "file") {
        await copyFile(from, to, source.size, existing);
        await store.deleteObject(keyOf(from));
      } else {
        // Copy everything, then delete the source: a failure halfway leaves the source whole.
        const budget = new WalkBudget(store.walk);
        const sourceKeys = await budget.run(() => copyFolder(from, to, existing !== null, budget));
        await store.deleteKeys(sourceKeys);
      }
      await keepFolder(parentOf(from));
    }),

    copy: guard(async (fromRel: string, toRel: string, opts: OverwriteOption & WalkOptions = {}) => {
      const from = locate(fromRel);
      const to = locate(toRel);
      if (from === "/") throw new FerryError("InvalidOperation");
      checkNewName(to);
      const { source, existing } = await checkPlacing(from, to, opts);
      if (source.type === "file") {
        await copyFile(from, to, source.size, existing);
        return;
      }
      const budget = new WalkBudget(store.walk, opts);
      await budget.run(() => copyFolder(from, to, existing !== null, budget));
    }),

    remove: guard(async (rel: string) => {
      const target = locate(rel);
      if (target === "/") throw new FerryError("InvalidOperation");
      const found = await mustFind(target);
      if (found.type === "file") await store.deleteObject(keyOf(target));
      else {
        // Everything below goes page by page (whatever its names), the marker last: a failure halfway leaves a smaller folder, still listed.
        const base = dirKey(target);
        for await (const page of store.pages(base)) {
          await store.deleteKeys(page.objects.map((o) => o.key).filter((k) => k !== "" && k !== base));
        }
        await store.deleteKeys([base]);
      }
      await keepFolder(parentOf(target));
    }),

    createReadStream: guard(async (rel: string, range: ReadRange = {}): Promise<Readable> => {
      checkRange(range);
      const target = locate(rel);
      if (target === "/") throw new FerryError("PathIsNotFile");
      const size = range.bufferSize ?? STREAM_BUFFER;
      const start = range.start ?? 0;
      const empty = () => Readable.from([], { objectMode: false, highWaterMark: size });
      let out;
      try {
        out = await store.read(keyOf(target), range);
      } catch (err) {
        if (store.isMissing(err)) {
          if ((await find(target))?.type === "folder") throw new FerryError("PathIsNotFile");
          return missing(target);
        }
        throw err;
      }
      // A start at or past the end (any range of an empty file): no bytes, as a local read gives.
      if (!out) return empty();
      const { body, from } = out;
      // Exactly the range asked for, whatever the store sent: a whole object (200) is skipped into, a longer range cut.
      if (from > start) {
        (body as Readable).destroy?.();
        throw new FerryError("CannotReadFile");
      }
      const limit = range.end === undefined ? Number.POSITIVE_INFINITY : range.end - start + 1;
      const stream = Readable.from(mapFailure(rechunk(body, size, start - from, limit), store.toError), { objectMode: false, highWaterMark: size });
      // A stream destroyed before its first read never starts rechunk (whose finally frees the body): the client's socket goes here.
      stream.once("close", () => (body as Readable).destroy?.());
      return stream;
    }),

    openReader: guard(async (rel: string): Promise<FileReader> => {
      const target = locate(rel);
      if (target === "/") throw new FerryError("PathIsNotFile");
      const key = keyOf(target);
      const file = await store.head(key);
      if (!file) {
        if ((await find(target))?.type === "folder") throw new FerryError("PathIsNotFile");
        return missing(target);
      }
      // If-Match: a file replaced since it was opened fails the read instead of mixing two contents.
      const reader = streamingReader(file.size, (start, end) => store.readIfMatch(key, file.etag, start, end));
      return { size: file.size, read: guard(reader.read), close: reader.close };
    }),

    usage: guard(async (dirRel: string, opts: WalkOptions = {}): Promise<Usage> => {
      const target = locate(dirRel);
      const found = await mustFind(target);
      if (found.type === "file") return { size: found.size, files: 1, folders: 0 };
      const totals: Usage = { size: 0, files: 0, folders: 0 };
      const folders = new Set<string>();
      const budget = new WalkBudget(store.walk, opts);
      await budget.run(() =>
        walk(target, budget, (item) => {
          // Every folder on the way counts once, with a marker or without.
          const segments = item.rest.split("/");
          for (let i = 1; i < segments.length; i++) folders.add(segments.slice(0, i).join("/"));
          if (!item.rest.endsWith("/")) {
            totals.files++;
            totals.size += item.size;
          }
        }),
      );
      totals.folders = folders.size;
      return totals;
    }),

    adopt: guard(async (staged: StagedData, _rel: string, _opts?: OverwriteOption): Promise<StatResult> => {
      // Data staged on the local disk is not copied up here; uploads stream into the store directly.
      void staged;
      throw new FerryError("UnsupportedOperation");
    }),

    // An object is durable once the store answered its upload; there is no folder entry to sync.
    syncFolder: guard(async (rel: string) => {
      locate(rel);
    }),
  };

  /** Resumable uploads' begin: a name a user may create, a key within the store's limits, a whole size up to `limit` (FileTooLarge). Returns the key. */
  const uploadKey = (target: string, size: number, limit: number): string => {
    checkNewName(target);
    const key = keyOf(target);
    if (!Number.isSafeInteger(size) || size < 0) throw new FerryError("InvalidOperation");
    if (size > limit) throw new FerryError("FileTooLarge", null, { limit });
    return key;
  };

  /** A resumable upload's state as begin() gave it for `target` (InvalidOperation otherwise). */
  const checkState = (target: string, state: ResumableState) => {
    if (state.path !== target || !Number.isSafeInteger(state.partSize) || state.partSize < 1 || typeof state.id !== "string") throw new FerryError("InvalidOperation");
  };

  /**
   * A driver's Storage: the tree's methods, and the driver's own uploads and clean-up. A view for one
   * request (cached) is the storage itself: a bucket has no links, so there is no walk to spare.
   */
  const storage = (own: Pick<Storage, "beginWrite" | "resumable" | "cleanupStale">): Storage => {
    const driver: Storage = { ...methods, beginWrite: guard(own.beginWrite), resumable: own.resumable, cleanupStale: guard(own.cleanupStale), cached: () => driver };
    return driver;
  };

  return { storage, guard, locate, keyOf, findFolder, checkParent, checkFileTarget, fileResult, writeTarget, uploadKey, checkState };
}

/** Where a part writer's bytes go: the driver's part uploads (S3's multipart parts, Azure's blocks) and how the file is placed. */
export interface PartSteps {
  /** The normalised final relative path. */
  path: string;
  /** The catalogue error for any failure (a FerryError passes through). */
  toError(err: unknown): FerryError;
  partSize: number;
  /** More bytes than this are refused with QuotaExceeded. */
  maxBytes: number;
  /** Sends one part of exactly partSize bytes. */
  send(part: Buffer): Promise<void>;
  /** After the last byte: places the file from the parts sent and `rest` (what followed them; the whole file when it was smaller than one part), `size` bytes in all. */
  place(rest: Buffer, size: number): Promise<StatResult>;
  /** Drops what was sent (streamWriter's drop). */
  drop(): Promise<void>;
}

/**
 * A Writer whose bytes go to the store in parts of exactly partSize as they arrive. What is held
 * (less than one part) is kept as copies: a caller may reuse its buffers once a write returned.
 */
export function partWriter(steps: PartSteps): Writer {
  const size = steps.partSize;
  let pending: Buffer[] = [];
  let held = 0;
  let written = 0;
  const take = () => {
    const rest = Buffer.concat(pending, held);
    pending = [];
    held = 0;
    return rest;
  };
  return streamWriter({
    path: steps.path,
    toError: steps.toError,
    bytesWritten: () => written,
    write: async (chunks) => {
      const n = chunks.reduce((sum, c) => sum + c.length, 0);
      if (written + n > steps.maxBytes) throw new FerryError("QuotaExceeded");
      for (const c of chunks) pending.push(Buffer.from(c));
      held += n;
      written += n;
      while (held >= size) {
        const all = Buffer.concat(pending, held);
        pending = held > size ? [all.subarray(size)] : [];
        held -= size;
        await steps.send(all.subarray(0, size));
      }
    },
    place: () => steps.place(take(), written),
    drop: () => {
      take();
      return steps.drop();
    },
  });
}

/**
 * The checks of a resumable upload's parts (StoredPart): part n (from 1) is exactly partSize bytes,
 * the last one the rest; InvalidOperation otherwise.
 */
export function partChecks(state: ResumableState) {
  const count = state.size === 0 ? 0 : Math.ceil(state.size / state.partSize);
  const sizeOf = (n: number) => (n < count ? state.partSize : state.size - (count - 1) * state.partSize);
  return {
    /** A part number in range, and bytes of that part's size. */
    part(n: number, bytes: Uint8Array) {
      if (!Number.isSafeInteger(n) || n < 1 || n > count || bytes.length !== sizeOf(n)) throw new FerryError("InvalidOperation");
    },
    /** Every part, in order, each of its size, and each with the tag `tagOf` gives where the driver made the tags itself. */
    all(given: readonly StoredPart[], tagOf?: (n: number) => string) {
      if (given.length !== count || given.some((p, i) => p.number !== i + 1 || p.size !== sizeOf(p.number) || (tagOf !== undefined && p.etag !== tagOf(p.number)))) {
        throw new FerryError("InvalidOperation");
      }
    },
  };
}
