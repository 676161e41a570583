import { describe, expect, it } from "vitest";
import { installersFor, offeredInstallers } from "./platforms";

describe("installersFor", () => {
  it("offers rpm and deb on Linux, exe on Windows, dmg on a Mac", () => {
    expect(installersFor("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/120.0 Safari/537.36", "Linux x86_64")).toEqual(["rpm", "deb"]);
    expect(installersFor("Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/120.0", "Win32")).toEqual(["exe"]);
    expect(installersFor("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) Safari/605.1.15", "MacIntel")).toEqual(["dmg"]);
  });
  it("believes the user agent over navigator.platform, which it uses only when the agent names no system", () => {
    expect(installersFor("Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0", "Win32")).toEqual(["rpm", "deb"]);
    expect(installersFor("SomeBrowser/1.0", "MacIntel")).toEqual(["dmg"]);
  });
  it("offers every installer to a system it cannot tell", () => {
    expect(installersFor("SomeBrowser/1.0", "")).toEqual(["exe", "dmg", "rpm", "deb"]);
  });
});

describe("offeredInstallers", () => {
  it("offers only installers the administrator has, those for the browser's system first", () => {
    expect(offeredInstallers(["rpm", "deb"], ["exe", "deb"])).toEqual(["deb"]);
    expect(offeredInstallers(["exe"], ["exe", "deb", "rpm", "dmg"])).toEqual(["exe"]);
  });
  it("offers every available installer when none fits the system, and nothing when there is none", () => {
    expect(offeredInstallers(["dmg"], ["exe", "deb"])).toEqual(["exe", "deb"]);
    expect(offeredInstallers(["rpm", "deb"], [])).toEqual([]);
  });
});
