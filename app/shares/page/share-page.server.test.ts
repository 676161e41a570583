import { describe, expect, it } from "vitest";
import { ErrorCode } from "../../../contract/errors";
import { getT } from "../../i18n/i18next.server";
import { refusalText } from "./share-page.server";

const tFor = (lang: "en" | "zh") => getT(new Request("http://ferry.test/share/x", { headers: { "accept-language": lang === "zh" ? "zh-CN" : "en-US", cookie: `ferry_lang=${lang}` } }));

describe("a share page's refusal text", () => {
  it("says the minutes left when the address is throttled (4238) or the link's attempts are locked (4231)", async () => {
    const en = await tFor("en");
    expect(refusalText(en, ErrorCode.ShareRequestsThrottled, { retryAfter: 590 })).toBe("Too many requests for share links from this address; try again in 10 min");
    expect(refusalText(en, ErrorCode.ShareAttemptsLocked, { retryAfter: 30 })).toBe("Too many wrong passwords for this link; try again in 1 min");
    const zh = await tFor("zh");
    expect(refusalText(zh, ErrorCode.ShareRequestsThrottled, { retryAfter: 120 })).toBe("该地址的分享链接请求过多，请 2 分钟后再试");
  });
});
