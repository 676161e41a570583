import { parseWithZod } from "@conform-to/zod/v4";
import { describe, expect, it } from "vitest";
import { aliasAvailability, randomSharePassword } from "../../contract/share";
import {
  addEmailTag,
  copyText,
  createPayload,
  expiryUnixSeconds,
  joinEmails,
  localDate,
  maxExpiryDate,
  minExpiryDate,
  passwordProblem,
  shareFormSchema,
  tagLabel,
} from "./rules";

const form = (entries: Record<string, string>) => {
  const data = new FormData();
  for (const [k, v] of Object.entries(entries)) data.append(k, v);
  return parseWithZod(data, { schema: shareFormSchema });
};
const file = (i: number, path: string, alias = "") => ({ [`items[${i}].path`]: path, [`items[${i}].folder`]: "0", [`items[${i}].alias`]: alias });
const errorsOf = (result: ReturnType<typeof form>) => (result.status === "success" ? {} : result.reply().error);

describe("share password (spec section 5)", () => {
  it("presets 4 random letters", () => {
    const a = randomSharePassword();
    expect(a).toMatch(/^[A-Za-z]{4}$/);
    expect(passwordProblem(a, true)).toBeNull();
  });
  it("removes whitespace, allows at most 6, is required only when on", () => {
    expect(passwordProblem(" ab cd ef ", true)).toBeNull();
    expect(passwordProblem("abcdefg", true)).toBe("share.password.max");
    expect(passwordProblem("   ", true)).toBe("share.password.required");
    expect(passwordProblem("", false)).toBeNull();
    expect(passwordProblem("much too long", false)).toBeNull();
  });
  it("invitations always need one", () => {
    const base = { kind: "upload", serverPath: "/", "items[0].path": "/in", "items[0].folder": "1", expiry: "1" };
    expect(errorsOf(form({ ...base, password: "" }))).toHaveProperty("password", ["share.password.required"]);
    const ok = form({ ...base, password: " x y " });
    expect(ok.status).toBe("success");
    if (ok.status === "success") expect(createPayload(ok.value, { baseUrl: "http://w", nowMs: 0, language: "en" })).toMatchObject({ needPassword: true, shareUrlPasswd: "xy", shareUrlType: 0 });
  });
  it("an invitation is a file drop unless its box to show the folder is ticked", () => {
    const base = { kind: "upload", serverPath: "/", "items[0].path": "/in", "items[0].folder": "1", expiry: "1", password: "ab" };
    const payload = (fields: Record<string, string>) => {
      const parsed = form(fields);
      if (parsed.status !== "success") throw new Error("form refused");
      return createPayload(parsed.value, { baseUrl: "http://w", nowMs: 0, language: "en" });
    };
    expect(payload(base).shareShowContents).toBe(0);
    expect(payload({ ...base, showContents: "on" }).shareShowContents).toBe(1);
    // A download link has no such option.
    expect(payload({ ...base, kind: "download", showContents: "on" }).shareShowContents).toBe(0);
  });
});

describe("e-mail tags", () => {
  it("accepts only addresses, ignores duplicates, joins with ';'", () => {
    let tags: string[] = [];
    ({ tags } = addEmailTag(tags, "a@example.com"));
    expect(addEmailTag(tags, "not-an-address")).toEqual({ tags: ["a@example.com"], problem: "error.1022" });
    ({ tags } = addEmailTag(tags, " A@Example.com; "));
    expect(tags).toEqual(["a@example.com"]);
    ({ tags } = addEmailTag(tags, "b@example.org"));
    expect(joinEmails(tags)).toBe("a@example.com;b@example.org");
  });
  it("cuts long tags at 30 characters", () => {
    const long = "a.very.long.mailbox.name@example-company.com";
    expect(tagLabel(long)).toBe(`${long.slice(0, 30)}…`);
    expect(tagLabel("short@example.com")).toBe("short@example.com");
  });
  it("requires a recipient and a valid format when the e-mail switch is on", () => {
    const base = { kind: "download", serverPath: "/", ...file(0, "/a.txt"), expiry: "1", emailOn: "on" };
    expect(errorsOf(form({ ...base, shareEmail: "" }))).toHaveProperty("shareEmail", ["global.field.required"]);
    expect(errorsOf(form({ ...base, shareEmail: "a@example.com;nope" }))).toHaveProperty("shareEmail", ["error.1022"]);
    expect(form({ ...base, shareEmail: "a@example.com;a@example.com" }).status).toBe("success");
  });
});

describe("aliases", () => {
  it("are offered only for fewer than 10 plain files (hints error1, error2)", () => {
    expect(aliasAvailability([{ isFolder: false }])).toBeNull();
    expect(aliasAvailability([{ isFolder: false }, { isFolder: true }])).toBe("error1");
    expect(aliasAvailability(Array.from({ length: 10 }, () => ({ isFolder: false })))).toBe("error2");
    expect(aliasAvailability(Array.from({ length: 9 }, () => ({ isFolder: false })))).toBeNull();
  });
  it("refuse bad characters (error3), another file's name (error4), duplicates (error5)", () => {
    const base = { kind: "download", serverPath: "/", expiry: "1" };
    expect(errorsOf(form({ ...base, ...file(0, "/a.txt", "x:y") }))).toHaveProperty("aliases", ["app.share.alias.error3"]);
    expect(errorsOf(form({ ...base, ...file(0, "/a.txt", "b.txt"), ...file(1, "/b.txt") }))).toHaveProperty("aliases", ["app.share.alias.error4"]);
    expect(errorsOf(form({ ...base, ...file(0, "/a.txt", "same"), ...file(1, "/b.txt", "same") }))).toHaveProperty("aliases", ["app.share.alias.error5"]);
    const ok = form({ ...base, ...file(0, "/a.txt", "report.txt"), ...file(1, "/b.txt") });
    expect(ok.status).toBe("success");
    if (ok.status === "success") expect(createPayload(ok.value, { baseUrl: "http://w", nowMs: 0, language: "zh" }).fileAlias).toEqual([{ file: "/a.txt", alias: "report.txt" }]);
  });
});

describe("expiry", () => {
  const nowMs = Date.UTC(2026, 10, 23, 12, 0, 0);
  it("presets 1, 3, 7 days and 1 month; never is 0", () => {
    expect(expiryUnixSeconds("1", { nowMs })).toBe(nowMs / 1000 + 86400);
    expect(expiryUnixSeconds("30", { nowMs })).toBe(nowMs / 1000 + 30 * 86400);
    expect(expiryUnixSeconds("never", { nowMs })).toBe(0);
  });
  it("a picked date lasts to the end of that day in the browser's zone", () => {
    expect(expiryUnixSeconds("date", { nowMs, date: "2026-11-30", tzOffset: 0 })).toBe(Date.UTC(2026, 10, 30, 23, 59, 59) / 1000);
    // UTC+8 (offset -480): the day ends 8 hours earlier in UTC.
    expect(expiryUnixSeconds("date", { nowMs, date: "2026-11-30", tzOffset: -480 })).toBe(Date.UTC(2026, 10, 30, 15, 59, 59) / 1000);
    expect(expiryUnixSeconds("date", { nowMs, date: "2026-02-31" })).toBeNull();
    expect(expiryUnixSeconds("date", { nowMs, date: "" })).toBeNull();
  });
  it("the picker offers today to the engine's last day, no day it refuses; default is one day", () => {
    const now = new Date(2026, 0, 1, 10);
    expect(minExpiryDate(now)).toBe("2026-01-01");
    expect(maxExpiryDate(0)).toBe("9999-12-31");
    expect(maxExpiryDate(-480)).toBe("9999-12-31");
    // West of UTC the last day would end after the engine's limit.
    expect(maxExpiryDate(300)).toBe("9999-12-30");
    expect(localDate(now)).toBe("2026-01-01");
    const ok = form({ kind: "download", serverPath: "/", ...file(0, "/a.txt") });
    expect(ok.status === "success" && ok.value.expiry).toBe("1");
  });
  it("refuses a date whose end has passed", () => {
    const yesterday = localDate(new Date(), -1);
    expect(errorsOf(form({ kind: "download", serverPath: "/", ...file(0, "/a.txt"), expiry: "date", expireDate: yesterday, tzOffset: String(new Date().getTimezoneOffset()) }))).toHaveProperty("expireDate", ["error.4232"]);
  });
});

describe("copy text", () => {
  const labels = { link: "Link", password: "Password" };
  it("is the link and the password, or only the link", () => {
    expect(copyText("http://w/share/x", "abcd", labels)).toBe("Link: http://w/share/x\nPassword: abcd");
    expect(copyText("http://w/share/x", "", labels)).toBe("http://w/share/x");
  });
});
