import { ErrorCode, type ErrorName } from "../contract/errors";

/**
 * A failure with a code from the catalogue. Services throw it; the HTTP shell maps it to the
 * envelope, the HTTP status and the translated message. `vars` fill the message's {{placeholders}};
 * `data` travels in the envelope (e.g. the lockout counts of a wrong password).
 */
export class FerryError extends Error {
  readonly code: number;
  constructor(
    readonly errorName: ErrorName,
    readonly data: Record<string, unknown> | null = null,
    readonly vars: Record<string, string | number> = {},
  ) {
    super(errorName);
    this.code = ErrorCode[errorName];
  }
}

export const fail = (name: ErrorName, data?: Record<string, unknown> | null, vars?: Record<string, string | number>): never => {
  throw new FerryError(name, data ?? null, vars);
};
