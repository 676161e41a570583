import { describe, expect, it } from "vitest";
import { ErrorCode, errorMessageKey } from "../../contract/errors";
import { refusalOf } from "./refusals";

const item = (name: string, size: number, relativePath = "") => ({ file: new File([new Uint8Array(size)], name), relativePath });

describe("refusalOf", () => {
  it("refuses a file over the limit with the limit, and takes one at the limit", () => {
    expect(refusalOf(item("a.bin", 101), 100)).toEqual({ errorMsgKey: errorMessageKey(ErrorCode.FileTooLarge), errorVars: { limit: 100 } });
    expect(refusalOf(item("a.bin", 100), 100)).toBeNull();
  });

  it("has no size limit at 0", () => {
    expect(refusalOf(item("a.bin", 5000), 0)).toBeNull();
  });

  it("refuses a name, or a folder name of the path, the engine refuses", () => {
    expect(refusalOf(item("a.bin", 1, "ok/bad:name/a.bin"), 0)).toEqual({ errorMsgKey: errorMessageKey(ErrorCode.NameFormat) });
    expect(refusalOf(item(`${"x".repeat(256)}.txt`, 1), 0)?.errorMsgKey).toBe(errorMessageKey(ErrorCode.NameFormat));
    expect(refusalOf(item("a.bin", 1, "ok/fine/a.bin"), 0)).toBeNull();
  });
});
