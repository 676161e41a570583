import { describe, expect, it } from "vitest";
import { fileServerUrls } from "./file-server-url";

describe("fileServerUrls", () => {
  const info = { httpUrl: "", host: "", port: 2480, sslPort: 2481 };
  it("uses the plain port on http pages and the TLS port on https pages", () => {
    expect(fileServerUrls(info, { protocol: "http:", hostname: "files.example" })).toEqual({ httpUrl: "http://files.example:2480", wsUrl: "ws://files.example:2480/ws" });
    expect(fileServerUrls(info, { protocol: "https:", hostname: "files.example" })).toEqual({ httpUrl: "https://files.example:2481", wsUrl: "wss://files.example:2481/ws" });
  });
  it("uses the TLS port on an http page too while non-TLS connections are disabled (plain port 0)", () => {
    expect(fileServerUrls({ ...info, port: 0 }, { protocol: "http:", hostname: "files.example" })).toEqual({ httpUrl: "https://files.example:2481", wsUrl: "wss://files.example:2481/ws" });
  });
});
