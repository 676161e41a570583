/** The spec's validation patterns and password rules, shared by engine checks and web forms. */

export const ACCOUNT_PATTERN = /^[A-Za-z0-9_]{3,30}$/;
export const EMAIL_PATTERN = /^[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}$/;
export const PHONE_PATTERN = /^1\d{10}$/;
export const LICENCE_PATTERN = /^(?:[A-Za-z0-9]{13}|[A-Za-z0-9]{16}|[A-Za-z0-9]{20})$/;
export const PERSON_NAME_MAX = 32;
/** File and folder names: at most 255 characters, none of \ / : " * ? < > | (nor control characters, C0, DEL and C1). */
// eslint-disable-next-line no-control-regex -- control characters are exactly what names may not hold
export const FILE_NAME_FORBIDDEN = /[\\/:"*?<>|\u0000-\u001f\u007f-\u009f]/;
export const FILE_NAME_MAX = 255;

/**
 * Control characters no user-chosen name may hold: C0 (with tab, CR, LF), DEL, C1, line and paragraph
 * separators and the bidirectional overrides and isolates (they make "exe.txt" show as "txt.exe").
 */
// eslint-disable-next-line no-control-regex -- control characters are exactly what names may not hold
const NAME_CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
/** A surrogate half without its other half: not a character, and no file system stores it alike. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/** Look-alikes of / \ and . that NFKC does not fold onto them (division and fraction slashes, set minus…). */
const NAME_LOOKALIKES = /[\u2044\u2215\u2216\u2571\u29f5\u29f8\u29f9\u0701\u0702\ua4f8]/;
/** ASCII path characters a non-ASCII character may not turn into under NFKC (fullwidth ．／＼, one-dot leader U+2024…). */
const PATH_CHARACTERS = /[./\\]/;

export type NameProblem = "empty" | "length" | "control" | "forbidden" | "lookalike" | "dots";

/**
 * The one rule for every name a person chooses (file and folder names, share aliases, group names,
 * full names, notification titles): why `name` is refused, or null. Refused: empty, over `max`
 * characters, control characters (C0 with tab, CR and LF, DEL, C1, line separators, bidi
 * controls), the spec's forbidden characters \ / : " * ? < > |, a lone surrogate, a non-ASCII
 * character that NFKC turns into ".", "/" or "\" or that looks like one of them, and "." or "..".
 * "file..name", fullwidth colons and ideographic full stops (。) stay legal.
 */
export function nameProblem(name: string, max = FILE_NAME_MAX): NameProblem | null {
  if (typeof name !== "string" || name.length === 0) return "empty";
  if (name.length > max) return "length";
  if (NAME_CONTROL.test(name) || LONE_SURROGATE.test(name)) return "control";
  if (/[\\/:"*?<>|]/.test(name)) return "forbidden";
  if (name === "." || name === "..") return "dots";
  // eslint-disable-next-line no-control-regex -- the ASCII range, skipped: it is its own NFKC form
  if (/[^\u0000-\u007f]/.test(name)) {
    if (NAME_LOOKALIKES.test(name)) return "lookalike";
    for (const ch of name) if (ch.charCodeAt(0) > 0x7f && PATH_CHARACTERS.test(ch.normalize("NFKC"))) return "lookalike";
  }
  return null;
}

/** Message of a refused name, the spec's (app.transfer.error.name-format), for zod refinements. */
export const NAME_FORMAT_MESSAGE = 'The name must not contain any of \\ / : " * ? < > |, control characters or look-alikes of . and /';

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 20;

export const DEFAULT_WEAK_PASSWORDS = [
  "Password1!", "P@ssw0rd", "P@ssword1", "Passw0rd!", "Admin@123", "Admin123!", "Abc@1234", "Abcd@1234",
  "Qwer@1234", "Qwerty@123", "Aa123456!", "Aa@123456", "Welcome1!", "Root@123", "Test@1234", "1qaz@WSX",
  "1qaz!QAZ", "Zaq1@wsx", "Ferry@123", "Ferry123!",
];

export type PasswordProblem = "length" | "space" | "chinese" | "classes" | "account" | "weak";

export function isValidFileName(name: string): boolean {
  return nameProblem(name) === null;
}

/**
 * The first rule a new password breaks, or null when it passes: 8–20 characters, no white space,
 * no Chinese characters, three of upper/lower/digit/other, does not contain the account, not on the
 * weak-password list (compared without case).
 */
export function passwordProblem(password: string, account: string, weakList: readonly string[] = DEFAULT_WEAK_PASSWORDS): PasswordProblem | null {
  const length = [...password].length;
  if (length < PASSWORD_MIN || length > PASSWORD_MAX) return "length";
  if (/\s/u.test(password)) return "space";
  if (/\p{Script=Han}/u.test(password)) return "chinese";
  const classes = [/[A-Z]/, /[a-z]/, /[0-9]/, /[^A-Za-z0-9]/].filter((re) => re.test(password)).length;
  if (classes < 3) return "classes";
  if (account && password.toLowerCase().includes(account.toLowerCase())) return "account";
  const lower = password.toLowerCase();
  if (weakList.some((weak) => weak.toLowerCase() === lower)) return "weak";
  return null;
}
