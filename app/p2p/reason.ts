import type { i18n as I18n, TFunction } from "i18next";

/**
 * A P2P transfer's reason in the reader's language. The engine keeps it as text: a key without its
 * `p2p.reason.` prefix from a browser ("no-direct", "hash") or the engine's own words ("no
 * activity", "not answered in time"), both translated here; anything else (a reason from an older
 * or foreign client) is shown as it was stored.
 */
export function p2pReasonText(t: TFunction, i18n: I18n, reason: string): string {
  const key = `p2p.reason.${reason.trim().toLowerCase().replace(/\s+/g, "-")}`;
  return i18n.exists(key) ? t(key) : reason;
}
