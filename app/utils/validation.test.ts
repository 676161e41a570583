import { describe, expect, it } from "vitest";
import * as contract from "../../contract/validation";
import {
  ACCOUNT_PATTERN,
  EMAIL_PATTERN,
  LICENCE_PATTERN,
  PHONE_PATTERN,
  isValidFileName,
  passwordProblem,
} from "./validation";

describe("web validation re-exports the contract", () => {
  it("hands out the contract's own objects", () => {
    expect(ACCOUNT_PATTERN).toBe(contract.ACCOUNT_PATTERN);
    expect(EMAIL_PATTERN).toBe(contract.EMAIL_PATTERN);
    expect(PHONE_PATTERN).toBe(contract.PHONE_PATTERN);
    expect(LICENCE_PATTERN).toBe(contract.LICENCE_PATTERN);
    expect(passwordProblem).toBe(contract.passwordProblem);
    expect(isValidFileName).toBe(contract.isValidFileName);
  });
});

describe("ACCOUNT_PATTERN: 3–30 letters, digits, underscore", () => {
  it.each(["abc", "user_01", "A".repeat(30)])("accepts %s", (v) => expect(ACCOUNT_PATTERN.test(v)).toBe(true));
  it.each(["ab", "A".repeat(31), "user-1", "user name", "用户名"])("refuses %s", (v) => expect(ACCOUNT_PATTERN.test(v)).toBe(false));
});

describe("EMAIL_PATTERN", () => {
  it.each(["a@b.co", "first.last+tag@mail.example.com"])("accepts %s", (v) => expect(EMAIL_PATTERN.test(v)).toBe(true));
  it.each(["a@b", "@b.com", "a b@c.com", "a@b.c"])("refuses %s", (v) => expect(EMAIL_PATTERN.test(v)).toBe(false));
});

describe("PHONE_PATTERN: mainland, 11 digits starting with 1", () => {
  it.each(["13800138000", "19912345678"])("accepts %s", (v) => expect(PHONE_PATTERN.test(v)).toBe(true));
  it.each(["23800138000", "1380013800", "138001380001", "1380013800a"])("refuses %s", (v) => expect(PHONE_PATTERN.test(v)).toBe(false));
});

describe("LICENCE_PATTERN: 13, 16 or 20 letters and digits", () => {
  it.each(["A".repeat(13), "a1".repeat(8), "Z9".repeat(10)])("accepts %s", (v) => expect(LICENCE_PATTERN.test(v)).toBe(true));
  it.each(["A".repeat(12), "A".repeat(14), "A".repeat(17), "A".repeat(21), `${"A".repeat(12)}-`])("refuses %s", (v) =>
    expect(LICENCE_PATTERN.test(v)).toBe(false),
  );
});

describe("isValidFileName", () => {
  it("accepts ordinary names up to 255 characters", () => {
    expect(isValidFileName("report 2024.pdf")).toBe(true);
    expect(isValidFileName("x".repeat(255))).toBe(true);
  });
  it("refuses empty, too long, dot names and forbidden characters", () => {
    for (const name of ["", "x".repeat(256), ".", "..", "a/b", "a\\b", "a:b", 'a"b', "a*b", "a?b", "a<b", "a>b", "a|b", "a\u0001b"]) {
      expect(isValidFileName(name), name).toBe(false);
    }
  });
});

describe("passwordProblem", () => {
  it("passes a good password and names the first broken rule", () => {
    expect(passwordProblem("Good#Pass42", "alice")).toBeNull();
    expect(passwordProblem("Ab1!", "alice")).toBe("length");
    expect(passwordProblem("Good Pass42", "alice")).toBe("space");
    expect(passwordProblem("Good#密码42x", "alice")).toBe("chinese");
    expect(passwordProblem("goodpass42", "alice")).toBe("classes");
    expect(passwordProblem("Alice#Pass42", "alice")).toBe("account");
    expect(passwordProblem("p@ssw0rd", "alice")).toBe("weak");
  });
});
