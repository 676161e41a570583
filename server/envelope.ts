import type { Envelope, Lang } from "../contract/envelope";
import { ErrorCode, errorByCode, formatErrorMessage } from "../contract/errors";

/** The envelope of a catalogue code, translated: what the REST API, the socket and the tus uploads answer. */
export function envelope(code: number, lang: Lang, data: unknown = null, vars?: Record<string, string | number>): Envelope {
  const def = errorByCode(code) ?? errorByCode(ErrorCode.UnknownException)!;
  return { code: def.code, value: def.value, result: def.code === 200, message: formatErrorMessage(def, lang, vars), data };
}
