/**
 * The contract's validation patterns and password rules for web forms. They live in the contract so
 * the engine and the browser judge input the same way; never redefine them here.
 */
export {
  ACCOUNT_PATTERN,
  EMAIL_PATTERN,
  PHONE_PATTERN,
  LICENCE_PATTERN,
  PERSON_NAME_MAX,
  FILE_NAME_FORBIDDEN,
  FILE_NAME_MAX,
  PASSWORD_MIN,
  PASSWORD_MAX,
  DEFAULT_WEAK_PASSWORDS,
  isValidFileName,
  passwordProblem,
  type PasswordProblem,
} from "../../contract/validation";
