import { parseDeviceId } from "./device-id";
import { EMPTY_GROUP, parseGroup, parseRememberedIds, rememberId, type P2pFileGroup } from "./file-group";

/** Local storage keys (spec section 3; docs/p2p.md, "Device key"). */
export const DEVICE_KEY_STORAGE = "__P2P_DEVICE_KEY__";
export const DEVICE_IDS_STORAGE = "__DEVICE_IDS__";
export const P2P_FILES_STORAGE = "__P2P_FILES__";

function read(key: string): string | null {
  try {
    return window.localStorage.getItem(key);
  } catch {
    // Storage switched off (a private window's settings): nothing is remembered.
    return null;
  }
}

function write(key: string, value: string) {
  try {
    window.localStorage.setItem(key, value);
  } catch {
    // Full or switched off: the page works without remembering.
  }
}

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

const KEY_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/**
 * This browser's device key for `account` (32 random bytes, base64url), made on first use. The same
 * browser and account always give the same device; another account in this browser another one.
 */
export function deviceKey(account: string): string {
  let keys: Record<string, unknown> = {};
  try {
    const raw = JSON.parse(read(DEVICE_KEY_STORAGE) ?? "{}") as unknown;
    if (raw && typeof raw === "object" && !Array.isArray(raw)) keys = raw as Record<string, unknown>;
  } catch {
    keys = {};
  }
  const known = keys[account];
  if (typeof known === "string" && KEY_PATTERN.test(known)) return known;
  const key = base64url(crypto.getRandomValues(new Uint8Array(32)));
  write(DEVICE_KEY_STORAGE, JSON.stringify({ ...keys, [account]: key }));
  return key;
}

/** Receiver ids sent to before, most recent first. */
export function rememberedIds(): string[] {
  return parseRememberedIds(read(DEVICE_IDS_STORAGE), (id) => parseDeviceId(id) === id);
}

/** Remembers `id` at the front of the list (after a send that started). */
export function rememberReceiver(id: string): string[] {
  const ids = rememberId(rememberedIds(), id);
  write(DEVICE_IDS_STORAGE, JSON.stringify(ids));
  return ids;
}

/** The picked-files list as stored (names and sizes only: the File objects live as long as the page). */
export function storedFileGroup(): P2pFileGroup {
  return parseGroup(read(P2P_FILES_STORAGE));
}

export function storeFileGroup(group: P2pFileGroup) {
  if (group.list.length === 0) {
    try {
      window.localStorage.removeItem(P2P_FILES_STORAGE);
    } catch {
      // Nothing to clear.
    }
    return;
  }
  write(P2P_FILES_STORAGE, JSON.stringify(group));
}

export { EMPTY_GROUP };
