import type { TFunction } from "i18next";
import { errorVars } from "../../contract/errors";

/**
 * The text for a failed file command: the catalogue's translation of its code, else the engine's
 * message, else "Unknown error: {code}" (spec section 8). The engine's data fills the message's
 * variables (`{{name}}`) and picks its wording (`context`, e.g. 4340's "server": the server's
 * file-format limit, not the account's rule). Duck-typed rather than `instanceof`,
 * because the connection module is client-only and absent from the server build.
 */
export function fileErrorText(t: TFunction, exists: (key: string) => boolean, error: unknown): string {
  const code = errorCode(error);
  if (code === null) return t("global.server.error");
  const key = `error.${code}`;
  if (exists(key)) return t(key, errorVars((error as { data?: unknown }).data) ?? {});
  const message = (error as { message?: unknown }).message;
  return typeof message === "string" && message ? message : t("global.error.unknown", { code });
}

export const errorCode = (error: unknown): number | null =>
  typeof error === "object" && error !== null && typeof (error as { code?: unknown }).code === "number" ? (error as { code: number }).code : null;
