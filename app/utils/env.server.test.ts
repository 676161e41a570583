// @vitest-environment node
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseEnv } from "./env.server";

describe("the web's form limit (FERRY_WEB_FORM_LIMIT)", () => {
  it("is 64 KiB by default, and takes bytes from 1 KiB to 16 MiB", () => {
    expect(parseEnv({}).formLimit).toBe(65536);
    expect(parseEnv({ FERRY_WEB_FORM_LIMIT: "131072" }).formLimit).toBe(131072);
    expect(parseEnv({ FERRY_WEB_FORM_LIMIT: "" }).formLimit).toBe(65536);
    for (const bad of ["1023", "16777217", "64k", "-1", "1.5"]) expect(() => parseEnv({ FERRY_WEB_FORM_LIMIT: bad })).toThrow(/FERRY_WEB_FORM_LIMIT/);
  });
  it("is 1 MiB for the share dialogs' form (FERRY_WEB_SHARE_FORM_LIMIT)", () => {
    expect(parseEnv({}).shareFormLimit).toBe(1024 * 1024);
    expect(parseEnv({ FERRY_WEB_SHARE_FORM_LIMIT: "4194304" }).shareFormLimit).toBe(4194304);
    for (const bad of ["100", "67108865", "1MiB"]) expect(() => parseEnv({ FERRY_WEB_SHARE_FORM_LIMIT: bad })).toThrow(/FERRY_WEB_SHARE_FORM_LIMIT/);
  });
  it("is documented in README.md and .env.example", () => {
    for (const file of ["../../README.md", "../../.env.example"]) {
      const text = readFileSync(new URL(file, import.meta.url), "utf8");
      for (const key of ["FERRY_WEB_FORM_LIMIT", "FERRY_WEB_SHARE_FORM_LIMIT"]) expect({ file, key, documented: text.includes(key) }).toEqual({ file, key, documented: true });
    }
  });
});
