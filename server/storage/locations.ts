import { isUnder } from "./paths";

/**
 * Locations: a folder on one of the administrator's storages as one string, the key of usage
 * counts, reservations and previews' cache (docs/storage.md, "Storages"). On the built-in storage
 * (the engine's storage root) it is the path itself, as before storages existed; on another it is
 * "@<id>" followed by the path ("@2/groups/team").
 */

/** The storage the migration seeded: the engine's own storage root (<data dir>/storage). */
export const BUILTIN_STORAGE_ID = 1;

/** A usage-count and cache key of a folder on a storage: the path itself on the built-in storage, "@<id>/path" on another. */
export function locationOf(storageId: number, folder: string): string {
  return storageId === BUILTIN_STORAGE_ID ? folder : `@${storageId}${folder}`;
}

/** The storage and folder of a location (locationOf's inverse). */
export function parseLocation(location: string): { storageId: number; folder: string } {
  if (!location.startsWith("@")) return { storageId: BUILTIN_STORAGE_ID, folder: location };
  const slash = location.indexOf("/");
  return { storageId: Number(location.slice(1, slash)), folder: location.slice(slash) };
}

/** True when two locations are on one storage and one holds the other (or they are the same). */
export function locationsRelated(a: string, b: string): boolean {
  const x = parseLocation(a);
  const y = parseLocation(b);
  return x.storageId === y.storageId && (isUnder(x.folder, y.folder) || isUnder(y.folder, x.folder));
}

/** True when `inner` lies in `outer` (or is it), on the same storage. */
export function locationUnder(inner: string, outer: string): boolean {
  const x = parseLocation(inner);
  const y = parseLocation(outer);
  return x.storageId === y.storageId && isUnder(x.folder, y.folder);
}

