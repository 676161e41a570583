import { type FileAttributes, type FileEntry, fileTypeCode, type Listing, type SocketResults } from "../../contract/files";
import { hasPermission, Permission } from "../../contract/permissions";
import type { Db } from "../db/connect";
import type { EventSink } from "../events/service";
import { FerryError } from "../errors";
import { baseName, commonParent, isUnder, joinName, normaliseUserPath, parentOf } from "../storage/paths";
import { type Entry, storageError, type Usage } from "../storage/storage";
import { WalkBudget } from "../storage/walk";
import type { Hashes } from "./hashes";
import type { Quota } from "./quota";
import { checkAllowed, isForbidden, type Space, type Spaces } from "./spaces";
import { checkFormat, rulesOf } from "./upload-rules";

/**
 * The file commands on a space (docs/file-server.md, "Commands"): list, mkdir, rename, exists,
 * move, copy, remove, attributes, tree and search. Each call opens the space afresh (permission
 * and membership re-read), checks the permission bit the command needs and the user's forbidden
 * paths, and then works only through the space's Storage, which confines every path.
 */

/** Entries a search looks at before it gives up and answers `truncated` (FERRY_WALK_MAX_ENTRIES, when lower, wins). */
export const SEARCH_VISIT_CAP = 200_000;

type Outcome = { done: string[]; failed: { path: string; code: number }[] };

const child = (dir: string, name: string) => (dir === "/" ? `/${name}` : `${dir}/${name}`);

/** Folders first, then files; each by name in code-unit order, so every locale and run sees the same order. */
function byTypeThenName(a: Entry, b: Entry): number {
  if (a.type !== b.type) return a.type === "folder" ? -1 : 1;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

const toFileEntry = (e: Entry): FileEntry => ({ name: e.name, file_type: e.type === "folder" ? "Folder" : "File", size: e.size, time: e.mtime });

const FOLDER = fileTypeCode("Folder");
const FILE = fileTypeCode("File");

/**
 * The `list` reply of `entries` (sorted by name, as Storage.list gives them): folders first, then
 * files, in columns. Each entry goes straight to its place, so the name order within each group
 * holds without a second sort (byTypeThenName gives the same order).
 */
function listingOf(path: string, entries: readonly Entry[]): Listing {
  const n = entries.length;
  const listing: Listing = { path, names: new Array<string>(n), types: new Array<number>(n), sizes: new Array<number>(n), times: new Array<number>(n) };
  let folder = 0;
  for (const e of entries) if (e.type === "folder") folder++;
  let file = folder;
  folder = 0;
  for (const e of entries) {
    const isFolder = e.type === "folder";
    const i = isFolder ? folder++ : file++;
    listing.names[i] = e.name;
    listing.types[i] = isFolder ? FOLDER : FILE;
    listing.sizes[i] = e.size;
    listing.times[i] = e.mtime;
  }
  return listing;
}

const isError = (err: unknown, name: FerryError["errorName"]) => err instanceof FerryError && err.errorName === name;

export interface FileServiceDeps {
  db: Db;
  spaces: Spaces;
  hashes: Hashes;
  quota: Quota;
  /** Events of mkdir ("created"), rename and remove (server/events/, docs/events.md). */
  events?: EventSink;
}

interface Ctx {
  space: Space;
  /** Empty on group spaces: forbidden paths belong to a user's own home. */
  forbidden: string[];
}

export function createFileService({ db, spaces, hashes, quota, events }: FileServiceDeps) {
  async function open(userId: number, groupId: number, bit: number): Promise<Ctx> {
    const space = await spaces.open(userId, groupId);
    if (!hasPermission(space.permission, bit)) throw new FerryError("PermissionDenied");
    return { space, forbidden: space.forbidden };
  }

  /**
   * Refuses a forbidden path with PermissionDenied, the answer an unknown group gets too, as sent
   * and with its symbolic links resolved (checkAllowed); answers the canonical path. With
   * `subtree`, also a path holding a forbidden one: moving, copying or removing it would carry the
   * forbidden content along.
   */
  const guard = (ctx: Ctx, path: string, subtree = false): Promise<string> => checkAllowed(ctx.space, path, subtree);

  /**
   * guard() for one item of a several-item command: a link leading out of the home is not a
   * refusal of the whole command but that item's failure (1066), which the storage reports itself.
   */
  const guardItem = (ctx: Ctx, path: string): Promise<unknown> =>
    guard(ctx, path, true).catch((err: unknown) => {
      if (!isError(err, "InvalidPath")) throw err;
    });

  /**
   * The entries of folder `dir` that are not forbidden; `dirs` are its path as sent and its
   * canonical path. `dir` itself passed guard(), so only a forbidden path naming one of its
   * children can hide an entry: one set look-up per entry, even in a folder of 100,000. A link
   * whose target is forbidden is hidden too.
   */
  const visible = (ctx: Ctx, dirs: readonly string[], entries: Entry[]) => {
    if (ctx.forbidden.length === 0) return entries;
    const hidden = new Set(ctx.forbidden.filter((f) => f !== "/" && dirs.includes(parentOf(f))).map(baseName));
    return entries.filter((e) => !hidden.has(e.name.normalize("NFC")) && !(e.link && isForbidden(ctx.forbidden, e.link.target)));
  };

  /** A folder's usage without what lies in forbidden paths below it; `real` is its canonical path. */
  async function visibleUsage(ctx: Ctx, dir: string, real: string, signal?: AbortSignal): Promise<Usage> {
    const usage = await ctx.space.storage.usage(dir, { signal });
    // The walk follows no link, so only forbidden paths that are their own canonical form were counted.
    const below = ctx.forbidden.filter((f) => f !== real && isUnder(f, real));
    const canonical = await Promise.all(below.map((f) => ctx.space.storage.resolve(f).catch(() => null)));
    const inside = below.filter((f, i) => canonical[i] === f);
    const outermost = inside.filter((f) => !inside.some((g) => g !== f && isUnder(f, g)));
    for (const f of outermost) {
      try {
        const [info, hidden] = await Promise.all([ctx.space.storage.stat(f), ctx.space.storage.usage(f, { signal })]);
        usage.size -= hidden.size;
        usage.files -= hidden.files;
        usage.folders -= hidden.folders + (info.type === "folder" ? 1 : 0);
      } catch (err) {
        if (!isError(err, "PathNotFound")) throw err;
      }
    }
    return usage;
  }

  /** The existing folder `path`: PathNotFound, or PathIsFile for a file. */
  async function folderAt(ctx: Ctx, path: string): Promise<void> {
    const info = await ctx.space.storage.stat(path);
    if (info.type !== "folder") throw new FerryError("PathIsFile");
  }

  async function existsAt(ctx: Ctx, path: string): Promise<boolean> {
    try {
      await ctx.space.storage.stat(path);
      return true;
    } catch (err) {
      if (isError(err, "PathNotFound")) return false;
      throw err;
    }
  }

  /**
   * Moves or copies `src` to the new path `dest`; with overwrite a file replaces a file and a folder
   * merges into a folder. `depth` counts the merge levels above, within the walk limits.
   */
  async function place(kind: "move" | "copy", ctx: Ctx, src: string, dest: string, overwrite: boolean, signal?: AbortSignal, depth = 0): Promise<void> {
    const { storage, key } = ctx.space;
    const act = (opts: { overwrite?: boolean }) => (kind === "move" ? storage.rename(src, dest, opts) : storage.copy(src, dest, { ...opts, signal }));
    try {
      await act({});
    } catch (err) {
      if (!overwrite || !isError(err, "PathExists")) throw err;
      const [from, to] = await Promise.all([storage.stat(src), storage.stat(dest)]);
      if (from.type === "folder" && to.type === "folder") {
        await merge(kind, ctx, src, dest, signal, depth);
        return;
      }
      if (from.type !== to.type) throw new FerryError(from.type === "folder" ? "PathIsFile" : "PathIsNotFile");
      // The old file's hash must not outlive it, even when size and second-resolution time match.
      await hashes.removePrefix(key, dest);
      await act({ overwrite: true });
    }
    if (kind === "move") await hashes.movePrefix(key, src, dest);
  }

  /**
   * Merges folder `src` into the existing folder `dest` entry by entry, so that an overwrite never
   * deletes what only the target held. A moved folder goes once it is empty; on a failure the
   * entries not moved stay where they were.
   */
  async function merge(kind: "move" | "copy", ctx: Ctx, src: string, dest: string, signal: AbortSignal | undefined, depth: number): Promise<void> {
    let first: unknown = null;
    const budget = new WalkBudget(spaces.walkLimits, { signal });
    const entries = await budget.run(async () => {
      budget.folder(depth);
      const listed = await ctx.space.storage.list(src);
      budget.entries(listed.length);
      return listed;
    });
    for (const entry of entries) {
      // A copy does not follow links (as Storage.copy); a move carries the link itself.
      if (kind === "copy" && entry.link) continue;
      try {
        await place(kind, ctx, child(src, entry.name), child(dest, entry.name), true, signal, depth + 1);
      } catch (err) {
        first ??= err;
      }
    }
    if (first) throw first;
    if (kind === "move") {
      await ctx.space.storage.remove(src);
      await hashes.removePrefix(ctx.space.key, src);
    }
  }

  async function transfer(kind: "move" | "copy", userId: number, groupId: number, paths: string[], target: string, overwrite: boolean, signal?: AbortSignal): Promise<Outcome> {
    const ctx = await open(userId, groupId, kind === "move" ? Permission.Move : Permission.Copy);
    const dir = normaliseUserPath(target);
    await guard(ctx, dir);
    const sources = [...new Set(paths.map(normaliseUserPath))];
    const items = sources.map((src) => ({ src, dest: child(dir, baseName(src)) }));
    const names = new Set<string>();
    for (const { src, dest } of items) {
      // A folder into itself or below itself says so; the root, a copy onto itself, two items of one name.
      if (src !== "/" && isUnder(dir, src)) throw new FerryError("FolderIntoItself");
      if (src === "/" || (kind === "copy" && src === dest) || names.has(dest)) throw new FerryError("InvalidOperation");
      names.add(dest);
      await guardItem(ctx, src);
      await guardItem(ctx, dest);
    }
    await folderAt(ctx, dir);
    // Moving an item into the folder it is already in changes nothing.
    const work = items.filter((i) => i.src !== i.dest);
    // Replacing an item destroys what it held: overwrite takes the Delete bit as well, and is not
    // for a user (or group space) limited to new files. Without it an existing name is refused, and
    // nothing that appears meanwhile is replaced either.
    const newOnly = overwrite && (await rulesOf(db, userId, ctx.space)).uploadNewOnly;
    const replace = overwrite && !newOnly && hasPermission(ctx.space.permission, Permission.Delete);
    if (!replace) {
      const taken = await Promise.all(work.map((i) => existsAt(ctx, i.dest)));
      const existing = work.filter((_, n) => taken[n]).map((i) => baseName(i.dest));
      if (existing.length > 0) {
        if (!overwrite) throw new FerryError("TargetExists", { existing });
        if (newOnly) throw new FerryError("UploadNewOnly", { name: existing[0], existing }, { name: existing[0]! });
        throw new FerryError("PermissionDenied");
      }
    }
    const outcome: Outcome = { done: items.filter((i) => i.src === i.dest).map((i) => i.src), failed: [] };
    // Events (docs/events.md): a move is a rename ({path} old, {newPath} new), a copy "created" for the new item; only what an event listens for is looked at.
    const watched = events && (kind === "move" ? events.wants("file_renamed") || events.wants("folder_renamed") : events.wants("created"));
    const run = async () => {
      for (const { src, dest } of work) {
        try {
          await place(kind, ctx, src, dest, replace, signal);
          outcome.done.push(src);
          const made = watched ? await ctx.space.storage.stat(dest).catch(() => null) : null;
          const size = made?.type === "file" ? made.size : null;
          if (made && kind === "move") events!.fire({ type: made.type === "file" ? "file_renamed" : "folder_renamed", userId, groupId, path: src, newPath: dest, size });
          if (made && kind === "copy") events!.fire({ type: "created", userId, groupId, path: dest, size });
        } catch (err) {
          outcome.failed.push({ path: src, code: storageError(err).code });
        }
      }
      return outcome;
    };
    if (kind === "copy") return quota.copy(userId, ctx.space, work, replace, run);
    await run();
    // A move stays in the space; only what an overwrite replaced leaves the counts.
    if (replace) for (const { dest } of work) quota.changed(ctx.space, dest);
    return outcome;
  }

  return {
    async list(userId: number, groupId: number, path: string): Promise<SocketResults["list"]> {
      const ctx = await open(userId, groupId, Permission.List);
      const dir = normaliseUserPath(path);
      const real = await guard(ctx, dir);
      return listingOf(dir, visible(ctx, [dir, real], await ctx.space.storage.list(dir)));
    },

    async mkdir(userId: number, groupId: number, parent: string, name: string): Promise<SocketResults["mkdir"]> {
      const ctx = await open(userId, groupId, Permission.Mkdir);
      const target = joinName(normaliseUserPath(parent), name);
      await guard(ctx, target);
      await ctx.space.storage.mkdir(target);
      quota.changed(ctx.space, target, { size: 0, files: 0, folders: 1 });
      events?.fire({ type: "created", userId, groupId, path: target });
      return { path: target };
    },

    async rename(userId: number, groupId: number, path: string, newName: string): Promise<SocketResults["rename"]> {
      const ctx = await open(userId, groupId, Permission.Rename);
      const from = normaliseUserPath(path);
      if (from === "/") throw new FerryError("InvalidOperation");
      const to = joinName(parentOf(from), newName);
      await guard(ctx, from, true);
      await guard(ctx, to, true);
      // A file renamed to a type its user may not upload would get around the format rule.
      const renamed = await ctx.space.storage.stat(from);
      if (renamed.type === "file") checkFormat(await rulesOf(db, userId, ctx.space), to);
      await ctx.space.storage.rename(from, to);
      await hashes.movePrefix(ctx.space.key, from, to);
      events?.fire({ type: renamed.type === "file" ? "file_renamed" : "folder_renamed", userId, groupId, path: from, newPath: to, size: renamed.type === "file" ? renamed.size : null });
      return { path: to };
    },

    async exists(userId: number, groupId: number, target: string, names: string[]): Promise<SocketResults["exists"]> {
      const ctx = await open(userId, groupId, Permission.List);
      const dir = normaliseUserPath(target);
      const real = await guard(ctx, dir);
      // A name is one segment; "a/b" would look deeper than the folder asked about.
      if (names.some((n) => n.includes("/"))) throw new FerryError("InvalidPath");
      const paths = [...new Set(names)].map((n) => ({ name: n, path: normaliseUserPath(child(dir, n)), real: normaliseUserPath(child(real, n)) }));
      await folderAt(ctx, dir);
      // A name is hidden when it is forbidden, or is a link whose target is (as listings hide it).
      const lexicallyShown = paths.filter((p) => !isForbidden(ctx.forbidden, p.path) && !isForbidden(ctx.forbidden, p.real));
      const reachable = await Promise.all(
        lexicallyShown.map((p) =>
          ctx.forbidden.length === 0
            ? true
            : guard(ctx, p.path).then(
                () => true,
                (err: unknown) => {
                  if (isError(err, "PermissionDenied")) return false;
                  throw err;
                },
              ),
        ),
      );
      const shown = lexicallyShown.filter((_, i) => reachable[i]);
      const found = await Promise.all(shown.map((p) => existsAt(ctx, p.path)));
      return { existing: shown.filter((_, i) => found[i]).map((p) => p.name) };
    },

    move: (userId: number, groupId: number, paths: string[], target: string, overwrite: boolean, signal?: AbortSignal) =>
      transfer("move", userId, groupId, paths, target, overwrite, signal),
    copy: (userId: number, groupId: number, paths: string[], target: string, overwrite: boolean, signal?: AbortSignal) =>
      transfer("copy", userId, groupId, paths, target, overwrite, signal),

    async remove(userId: number, groupId: number, paths: string[]): Promise<Outcome> {
      const ctx = await open(userId, groupId, Permission.Delete);
      const rels = [...new Set(paths.map(normaliseUserPath))];
      for (const rel of rels) {
        if (rel === "/") throw new FerryError("InvalidOperation");
        await guardItem(ctx, rel);
      }
      const outcome: Outcome = { done: [], failed: [] };
      // A delete event tells a file from a folder: what it was is asked before it goes (only when an event listens).
      const watched = events && (events.wants("file_deleted") || events.wants("folder_deleted"));
      for (const rel of rels) {
        try {
          const gone = watched ? await ctx.space.storage.stat(rel).catch(() => null) : null;
          await ctx.space.storage.remove(rel);
          quota.changed(ctx.space, rel);
          await hashes.removePrefix(ctx.space.key, rel);
          outcome.done.push(rel);
          if (gone) events!.fire({ type: gone.type === "file" ? "file_deleted" : "folder_deleted", userId, groupId, path: rel, size: gone.type === "file" ? gone.size : null });
        } catch (err) {
          // Already gone with a folder removed before it in the same request.
          if (isError(err, "PathNotFound") && outcome.done.some((d) => isUnder(rel, d))) outcome.done.push(rel);
          else outcome.failed.push({ path: rel, code: storageError(err).code });
        }
      }
      return outcome;
    },

    async attributes(userId: number, groupId: number, paths: string[], signal?: AbortSignal): Promise<FileAttributes> {
      const ctx = await open(userId, groupId, Permission.List);
      const rels = [...new Set(paths.map(normaliseUserPath))];
      const reals = new Map<string, string>();
      for (const rel of rels) reals.set(rel, await guard(ctx, rel));
      const { storage, key } = ctx.space;
      if (rels.length === 1) {
        const rel = rels[0]!;
        const info = await storage.stat(rel);
        if (info.type === "file") {
          return { file_size: info.size, file_count: 1, folder_count: 0, write_time: info.mtime, path: rel, hash: await hashes.lookup(key, rel, info.size, info.mtime) };
        }
        const usage = await visibleUsage(ctx, rel, reals.get(rel)!, signal);
        return { file_size: usage.size, file_count: usage.files, folder_count: usage.folders, write_time: info.mtime, path: rel, hash: null };
      }
      // Several items: a selected folder counts itself and what it holds, as a file manager shows a selection.
      const sums: FileAttributes = { file_size: 0, file_count: 0, folder_count: 0, write_time: 0, path: commonParent(rels), hash: null };
      for (const rel of rels) {
        const info = await storage.stat(rel);
        sums.write_time = Math.max(sums.write_time, info.mtime);
        if (info.type === "file") {
          sums.file_size += info.size;
          sums.file_count += 1;
        } else {
          const usage = await visibleUsage(ctx, rel, reals.get(rel)!, signal);
          sums.file_size += usage.size;
          sums.file_count += usage.files;
          sums.folder_count += usage.folders + 1;
        }
      }
      return sums;
    },

    async tree(userId: number, groupId: number, path: string): Promise<SocketResults["tree"]> {
      const ctx = await open(userId, groupId, Permission.List);
      const dir = normaliseUserPath(path);
      const real = await guard(ctx, dir);
      const folders = visible(ctx, [dir, real], await ctx.space.storage.list(dir))
        .filter((e) => e.type === "folder")
        .sort(byTypeThenName)
        .map((e) => ({ name: e.name, path: child(dir, e.name) }));
      return { path: dir, folders };
    },

    /**
     * Breadth-first, so near matches come first; bounded by `limit` results, by SEARCH_VISIT_CAP
     * (or FERRY_WALK_MAX_ENTRIES) entries looked at and by FERRY_WALK_MAX_DEPTH levels, past which
     * it answers `truncated`. Links are listed (and may match) but never entered, so a link loop
     * ends; each folder's canonical path is its parent's plus its name.
     */
    async search(userId: number, groupId: number, path: string, keyword: string, limit: number, signal?: AbortSignal): Promise<SocketResults["search"]> {
      const ctx = await open(userId, groupId, Permission.List);
      const root = normaliseUserPath(path);
      const rootReal = await guard(ctx, root);
      const needle = keyword.normalize("NFC").toLowerCase();
      const budget = new WalkBudget(spaces.walkLimits, { signal });
      const visitCap = Math.min(SEARCH_VISIT_CAP, budget.limits.maxEntries);
      return budget.run(async () => {
        const queue = [{ dir: root, real: rootReal, depth: 0 }];
        const entries: SocketResults["search"]["entries"] = [];
        let visited = 0;
        let truncated = false;
        for (let i = 0; i < queue.length; i++) {
          const { dir, real, depth } = queue[i]!;
          budget.folder(depth);
          let listed: Entry[];
          try {
            listed = await ctx.space.storage.list(dir);
          } catch (err) {
            if (dir === root) throw err;
            continue; // removed or replaced while we searched
          }
          for (const entry of visible(ctx, [dir, real], listed).sort(byTypeThenName)) {
            if (++visited > visitCap) return { entries, truncated: true };
            const at = child(dir, entry.name);
            if (entry.type === "folder" && !entry.link) {
              if (budget.mayDescend(depth)) queue.push({ dir: at, real: child(real, entry.name), depth: depth + 1 });
              else truncated = true;
            }
            if (!entry.name.normalize("NFC").toLowerCase().includes(needle)) continue;
            if (entries.length === limit) return { entries, truncated: true };
            entries.push({ ...toFileEntry(entry), path: at });
          }
        }
        return { entries, truncated };
      });
    },
  };
}

export type FileService = ReturnType<typeof createFileService>;
