import { describe, expect, it } from "vitest";
import i18next from "i18next";
import { i18nConfig } from "../../app/i18n/config";
import { errorByCode, errors, formatErrorMessage } from "../../contract/errors";
import { normalizePermission, parsePermission, Permission, PERMISSION_DEFAULT, PERMISSION_FULL, permissionLabels } from "../../contract/permissions";
import { isValidFileName, passwordProblem } from "../../contract/validation";

describe("password rules", () => {
  it.each([
    ["Abcdef1!", null],
    ["abcdefG1", null],
    ["ABCdef!!", null],
    ["ABC123!!", null],
    ["Abcdefghij123456789!", null],
    ["Abcde1!", "length"],
    ["Abcdefghij1234567890!", "length"],
    ["Abc def1!", "space"],
    ["Abc\tdef1!", "space"],
    ["Abc密码def1!", "chinese"],
    ["12345678", "classes"],
    ["abcdefgh", "classes"],
    ["ABCDEFGH", "classes"],
    ["abcd1234", "classes"],
    ["ABCD1234", "classes"],
    ["!!!!aaaa", "classes"],
    ["xBob#1234", "account"],
    ["P@ssw0rd", "weak"],
    ["p@SSW0RD", "weak"],
  ])("%s → %s", (password, problem) => {
    expect(passwordProblem(password, "bob")).toBe(problem);
  });
});

describe("file names", () => {
  it("allow what the spec allows and refuse its forbidden characters", () => {
    for (const ok of ["report.pdf", "file..name", "报告 2026.docx", "a".repeat(255)]) expect(isValidFileName(ok)).toBe(true);
    for (const bad of ["", ".", "..", "a/b", "a\\b", "a:b", 'a"b', "a*b", "a?b", "a<b", "a>b", "a|b", "a\nb", "a\u0000b", "a".repeat(256)]) {
      expect({ bad, ok: isValidFileName(bad) }).toEqual({ bad, ok: false });
    }
  });
});

describe("permissions", () => {
  it("has the spec's bits, default and full set", () => {
    expect(Permission).toMatchObject({ List: 2, Download: 4, Delete: 16, Rename: 32, Mkdir: 64, Upload: 128, Move: 256, Copy: 512, Share: 1024, Invite: 2048, HotFolder: 4096 });
    expect(PERMISSION_DEFAULT).toBe(6);
    expect(PERMISSION_FULL).toBe(8182);
    expect(normalizePermission(6)).toBe(15);
    expect(normalizePermission(0)).toBe(0);
  });
  it("parses names and numbers and labels masks", () => {
    expect(parsePermission("list,download,upload")).toBe(134);
    expect(parsePermission("2;4")).toBe(6);
    expect(parsePermission("134")).toBe(134);
    expect(() => parsePermission("fly")).toThrow(/unknown permission/);
    expect(permissionLabels(normalizePermission(134))).toBe("List;Download;Upload");
  });
});

describe("error catalogue", () => {
  const specCodes = [
    200, 400, 401, 402, 501, 1000, 1001, 1002, 1003, 1004, 1005, 1006, 1008, 1009, 1014, 1021, 1022, 1023, 1024, 1025, 1026, 1027, 1028, 1029,
    1030, 1031, 1032, 1033, 1034, 1036, 1037, 1041, 4025, 1042, 1043, 1044, 1045, 1050, 1055, 1056, 1057, 1059, 1060, 1074, 1077, 1086, 1087,
    1091, 1092, 1093, 1096, 4001, 4005, 4006, 4019, 4029, 4030, 4031, 4032,
    // REFERENCE.md
    1018, 1035, 1046, 1066, 1068, 1080, 1097, 4004, 4009, 4068,
  ];
  it("holds every code of both spec documents, each once", () => {
    for (const code of specCodes) expect({ code, found: !!errorByCode(code) }).toEqual({ code, found: true });
    expect(new Set(errors.map((e) => e.code)).size).toBe(errors.length);
  });
  it("has English and Chinese texts with the same variables", () => {
    for (const e of errors) {
      const vars = (s: string) => [...s.matchAll(/\{\{\s*(\w+)\s*(?:,\s*(\w+)\s*)?\}\}/g)].map((m) => m[0].replace(/\s/g, "")).sort();
      expect({ code: e.code, zh: vars(e.zh) }).toEqual({ code: e.code, zh: vars(e.en) });
      expect(e.zh.length).toBeGreaterThan(0);
    }
    expect(formatErrorMessage(errorByCode(1005)!, "en", { wrongTimes: 2, maxLockTimes: 5, lockPeriod: 3 })).toBe(
      "Wrong password: failed attempts 2 of 5 within 3 min; at the limit the account is locked",
    );
  });
  it("words 4340 by whose rule refused: the account's by default, the server's with context \"server\" (engine and web alike)", async () => {
    const def = errorByCode(4340)!;
    expect(formatErrorMessage(def, "en", { name: "a.exe" })).toBe("a.exe cannot be uploaded: files of this type are not allowed for your account");
    expect(formatErrorMessage(def, "en", { name: "a.exe", context: "server" })).toBe("a.exe cannot be transferred: the server does not allow files of this type");
    expect(formatErrorMessage(def, "zh", { name: "a.exe", context: "server" })).toBe("无法传输 a.exe：服务器不允许此类型的文件");
    expect(formatErrorMessage(def, "zh", { name: "a.exe", context: "other" })).toBe("无法上传 a.exe：您的账号不允许此类型的文件");
    // The web translates the engine's data ({ name, scope, context }) with i18next's context.
    const i18n = i18next.createInstance();
    await i18n.init({ ...i18nConfig, lng: "zh" });
    expect(i18n.t("error.4340", { name: "b.bat", scope: "server", context: "server" })).toBe("无法传输 b.bat：服务器不允许此类型的文件");
    expect(i18n.t("error.4340", { name: "b.bat" })).toBe("无法上传 b.bat：您的账号不允许此类型的文件");
    await i18n.changeLanguage("en");
    expect(i18n.t("error.4340", { name: "b.bat", context: "server" })).toBe("b.bat cannot be transferred: the server does not allow files of this type");
    for (const e of errors) {
      const vars = (s: string) => [...s.matchAll(/\{\{\s*(\w+)\s*(?:,\s*(\w+)\s*)?\}\}/g)].map((m) => m[0].replace(/\s/g, "")).sort();
      for (const [context, text] of Object.entries(e.contexts ?? {})) expect({ code: e.code, context, en: vars(text.en), zh: vars(text.zh) }).toEqual({ code: e.code, context, en: vars(e.en), zh: vars(e.en) });
    }
  });
  it("shows byte counts as sizes, never as raw bytes", () => {
    expect(formatErrorMessage(errorByCode(4205)!, "en", { limit: 104857600 })).toBe("The file is larger than the server allows (100.00 MB)");
    expect(formatErrorMessage(errorByCode(4205)!, "zh", { limit: 104857600 })).toBe("文件超过服务器允许的大小（100.00 MB）");
    expect(formatErrorMessage(errorByCode(4207)!, "en", { offset: 512, size: 2048 })).toBe("The upload is not complete yet (512 B of 2.00 KB received)");
    const text = (s: string) => s.replace(/\{\{[^}]*\}\}/g, "");
    for (const e of errors) expect({ code: e.code, en: /\bbytes\b/.test(text(e.en)), zh: text(e.zh).includes("字节") }).toEqual({ code: e.code, en: false, zh: false });
  });
});
