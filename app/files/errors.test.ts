import i18next from "i18next";
import { describe, expect, it } from "vitest";
import { ErrorCode } from "../../contract/errors";
import { i18nConfig } from "../i18n/config";
import { FileCommandError } from "./connection.client";
import { fileErrorText } from "./errors";

describe("fileErrorText", () => {
  it("says whose file-format rule refused (4340): the server's limit or the account's own rule, in en and zh, with the file's name", async () => {
    const i18n = i18next.createInstance();
    await i18n.init({ ...i18nConfig, lng: "en" });
    const text = (error: unknown) => fileErrorText(i18n.t, (key) => i18n.exists(key), error);
    const server = new FileCommandError("…", ErrorCode.FileFormatRefused, { name: "setup.exe", scope: "server", context: "server" });
    const own = new FileCommandError("…", ErrorCode.FileFormatRefused, { name: "setup.exe" });
    expect(text(server)).toBe("setup.exe cannot be transferred: the server does not allow files of this type");
    expect(text(own)).toBe("setup.exe cannot be uploaded: files of this type are not allowed for your account");
    await i18n.changeLanguage("zh");
    expect(text(server)).toBe("无法传输 setup.exe：服务器不允许此类型的文件");
    expect(text(own)).toBe("无法上传 setup.exe：您的账号不允许此类型的文件");
    expect(text({ code: 99999 })).toBe(i18n.t("global.error.unknown", { code: 99999 }));
  });
});
