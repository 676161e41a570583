/** The spec's validation patterns and password rules, shared by engine checks and web forms. */

export const ACCOUNT_PATTERN = /^[A-Za-z0-9_]{3,30}$/;
export const EMAIL_PATTERN = /^[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}$/;
export const PHONE_PATTERN = /^1\d{10}$/;
export const LICENCE_PATTERN = /^(?:[A-Za-z0-9]{13}|[A-Za-z0-9]{16}|[A-Za-z0-9]{20})$/;
export const PERSON_NAME_MAX = 32;
/** File and folder names: at most 255 characters, none of \ / : " * ? < > | (nor control characters). */
// eslint-disable-next-line no-control-regex -- control characters are exactly what names may not hold
export const FILE_NAME_FORBIDDEN = /[\\/:"*?<>|\u0000-\u001f\u007f]/;
export const FILE_NAME_MAX = 255;

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 20;

export const DEFAULT_WEAK_PASSWORDS = [
  "Password1!", "P@ssw0rd", "P@ssword1", "Passw0rd!", "Admin@123", "Admin123!", "Abc@1234", "Abcd@1234",
  "Qwer@1234", "Qwerty@123", "Aa123456!", "Aa@123456", "Welcome1!", "Root@123", "Test@1234", "1qaz@WSX",
  "1qaz!QAZ", "Zaq1@wsx", "Ferry@123", "Ferry123!",
];

export type PasswordProblem = "length" | "space" | "chinese" | "classes" | "account" | "weak";

export function isValidFileName(name: string): boolean {
  return name.length > 0 && name.length <= FILE_NAME_MAX && !FILE_NAME_FORBIDDEN.test(name) && name !== "." && name !== "..";
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
