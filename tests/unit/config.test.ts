import { readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { configSchema, ConfigError, loadConfig } from "../../server/config";

describe("configuration", () => {
  it("has the documented defaults", () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ apiPort: 8090, filePort: 2480, fileTlsPort: 2481, webPort: 3000, edition: "free", hashidSalt: "ferry", accessTokenTtl: 3600 });
    expect(c.dataDir).toBe(path.resolve("./data"));
    expect(c.databaseUrl).toBe(`sqlite:${path.resolve("./data/ferry.db")}`);
  });

  it("refuses invalid values at start-up with a message naming the option", () => {
    expect(() => loadConfig({ FERRY_API_PORT: "http" })).toThrow(ConfigError);
    expect(() => loadConfig({ FERRY_EDITION: "gold" })).toThrow(/FERRY_EDITION/);
    expect(() => loadConfig({ DATABASE_URL: "oracle://x" })).toThrow(/DATABASE_URL/);
  });

  it("reads an optional JSON file, which the environment overrides", () => {
    const file = path.join(tmpdir(), `ferry-config-${process.pid}.json`);
    writeFileSync(file, JSON.stringify({ FERRY_API_PORT: 9000, FERRY_EDITION: "pro" }));
    expect(loadConfig({ FERRY_CONFIG: file })).toMatchObject({ apiPort: 9000, edition: "pro" });
    expect(loadConfig({ FERRY_CONFIG: file, FERRY_API_PORT: "9100" }).apiPort).toBe(9100);
    writeFileSync(file, JSON.stringify({ FERRY_TYPO: 1 }));
    expect(() => loadConfig({ FERRY_CONFIG: file })).toThrow(/FERRY_TYPO|Unrecognized/);
  });

  it("documents every option in README.md and .env.example", () => {
    const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
    const example = readFileSync(new URL("../../.env.example", import.meta.url), "utf8");
    for (const key of Object.keys(configSchema.shape)) {
      expect({ key, readme: readme.includes(key), example: example.includes(key) }).toEqual({ key, readme: true, example: true });
    }
  });
});
