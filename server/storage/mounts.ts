import { FerryError } from "../errors";
import { copyAcross, moveAcross } from "./local";
import { baseName, isUnder, normaliseUserPath, parentOf } from "./paths";
import type { Entry, ResumableUpload, StatResult, Storage, Usage } from "./storage";

/**
 * Virtual directories (docs/storage.md, "Virtual directories"): a personal space whose user has
 * aliases is its home storage with other folders of Ferry's storage mounted at those aliases. The
 * result is a Storage like any other, so every caller — file commands, uploads, downloads, zips,
 * previews, share links — sees the aliases without knowing of them.
 *
 * A path is routed to the mount whose alias it lies under (else to the home) and the rest is handed
 * to that mount's own storage, which confines it to its own root: no `..`, and a symbolic link in
 * the target that leads out of the target is InvalidPath there, exactly as in a home. Paths coming
 * back (stat, resolve, writers) carry the alias again. The alias itself is the mount's root: it is
 * listed as a folder of its parent and can be listed, read and written into, but not renamed, moved,
 * copied or removed (InvalidOperation, as the root of a space) and creating it answers PathExists.
 * A folder or file of the home with the alias's name is hidden behind it.
 */
export interface Mount {
  /** Normalised user path of the alias: one name below the root ("/Projects"). */
  alias: string;
  /** The target folder's storage (rooted at the target). */
  storage: Storage;
}

interface Route {
  storage: Storage;
  /** The path inside that storage. */
  inner: string;
  /** The alias, "" for the home. */
  prefix: string;
}

const withPrefix = (prefix: string, inner: string) => (prefix === "" ? inner : inner === "/" ? prefix : `${prefix}${inner}`);

export function createMountedStorage(home: Storage, mounts: readonly Mount[]): Storage {
  if (mounts.length === 0) return home;

  const route = (rel: string): Route => {
    const path = normaliseUserPath(rel);
    for (const m of mounts) {
      if (isUnder(path, m.alias)) return { storage: m.storage, inner: path === m.alias ? "/" : path.slice(m.alias.length), prefix: m.alias };
    }
    return { storage: home, inner: path, prefix: "" };
  };
  /** Like route, but the alias itself (a mount's root) cannot be the subject. */
  const routeMovable = (rel: string): Route => {
    const r = route(rel);
    if (r.prefix !== "" && r.inner === "/") throw new FerryError("InvalidOperation");
    return r;
  };
  const outOf = (r: Route, stat: StatResult): StatResult => (r.prefix === "" ? stat : { ...stat, name: baseName(withPrefix(r.prefix, stat.path)), path: withPrefix(r.prefix, stat.path) });

  return {
    async stat(rel) {
      const r = route(rel);
      return outOf(r, await r.storage.stat(r.inner));
    },
    async resolve(rel) {
      const r = route(rel);
      return withPrefix(r.prefix, await r.storage.resolve(r.inner));
    },
    async list(dirRel) {
      const r = route(dirRel);
      const entries = await r.storage.list(r.inner);
      // A link's target is a canonical path: of the space, like resolve()'s.
      if (r.prefix !== "") return entries.map((e) => (e.link ? { ...e, link: { target: withPrefix(r.prefix, e.link.target) } } : e));
      const here = mounts.filter((m) => parentOf(m.alias) === r.inner);
      if (here.length === 0) return entries;
      const shown: Entry[] = [];
      for (const m of here) {
        try {
          const root = await m.storage.stat("/");
          shown.push({ name: baseName(m.alias), type: "folder", size: 0, mtime: root.mtime });
        } catch {
          // a target that is gone or unreadable is not shown; using the alias answers its error
        }
      }
      const names = new Set(here.map((m) => baseName(m.alias)));
      return [...entries.filter((e) => !names.has(e.name)), ...shown].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    },
    async mkdir(rel, options) {
      const r = route(rel);
      await r.storage.mkdir(r.inner, options);
    },
    async rename(fromRel, toRel, options) {
      const from = routeMovable(fromRel);
      const to = routeMovable(toRel);
      if (from.storage === to.storage) await from.storage.rename(from.inner, to.inner, options);
      else await moveAcross(from.storage, from.inner, to.storage, to.inner, options);
    },
    async copy(fromRel, toRel, options) {
      const from = routeMovable(fromRel);
      const to = routeMovable(toRel);
      if (from.storage === to.storage) await from.storage.copy(from.inner, to.inner, options);
      else await copyAcross(from.storage, from.inner, to.storage, to.inner, options);
    },
    async remove(rel) {
      const r = routeMovable(rel);
      await r.storage.remove(r.inner);
    },
    async createReadStream(rel, range) {
      const r = route(rel);
      return r.storage.createReadStream(r.inner, range);
    },
    async openReader(rel) {
      const r = route(rel);
      return r.storage.openReader(r.inner);
    },
    async usage(dirRel, options) {
      const r = route(dirRel);
      const totals: Usage = await r.storage.usage(r.inner, options);
      if (r.prefix !== "") return totals;
      // The aliases below a home folder count as its folders, with their content.
      for (const m of mounts.filter((m) => isUnder(m.alias, r.inner) && m.alias !== r.inner)) {
        const inner = await m.storage.usage("/", options).catch(() => null);
        if (!inner) continue;
        totals.size += inner.size;
        totals.files += inner.files;
        totals.folders += inner.folders + 1;
      }
      return totals;
    },
    async beginWrite(rel, options) {
      const r = routeMovable(rel);
      const writer = await r.storage.beginWrite(r.inner, options);
      if (r.prefix === "") return writer;
      return {
        path: withPrefix(r.prefix, writer.path),
        get bytesWritten() {
          return writer.bytesWritten;
        },
        stream: writer.stream,
        write: (chunk) => writer.write(chunk),
        commit: async () => outOf(r, await writer.commit()),
        abort: () => writer.abort(),
      };
    },
    async adopt(staged, rel, options) {
      const r = routeMovable(rel);
      return outOf(r, await r.storage.adopt(staged, r.inner, options));
    },
    resumable(rel) {
      const r = routeMovable(rel);
      const inner = r.storage.resumable?.(r.inner) ?? null;
      if (!inner || r.prefix === "") return inner;
      // The state keeps the mount's own path (resume hands it back as it was); complete answers in this storage's terms.
      const wrap = (upload: ResumableUpload): ResumableUpload => ({
        state: upload.state,
        writePart: (n, bytes) => upload.writePart(n, bytes),
        complete: async (parts, options) => outOf(r, await upload.complete(parts, options)),
        abort: () => upload.abort(),
      });
      return { partSize: inner.partSize, begin: async (size) => wrap(await inner.begin(size)), resume: (state) => wrap(inner.resume(state)) };
    },
    async syncFolder(rel) {
      const r = route(rel);
      await r.storage.syncFolder(r.inner);
    },
    cached: () => createMountedStorage(home.cached(), mounts.map((m) => ({ ...m, storage: m.storage.cached() }))),
    cleanupStale: (olderThanMs) => home.cleanupStale(olderThanMs),
  };
}
