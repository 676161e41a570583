// @vitest-environment node
import { beforeAll, describe, expect, it } from "vitest";
import type * as ShareSession from "./share-session.server";

// The module reads its secret when loaded: give it one, then load it.
let mod: typeof ShareSession;
beforeAll(async () => {
  process.env.FERRY_SESSION_SECRET = "share-session-test-secret-0123456789abcdef";
  mod = await import("./share-session.server");
});

const page = "http://web.test/share/8d7f0d52-4f4c-4b7c-9d54-0a4b1a5d2f10";
/** The request a browser sends next, carrying the cookies a response set. */
function next(url: string, ...setCookies: string[]) {
  const cookie = setCookies.map((c) => c.split(";")[0]).join("; ");
  return new Request(url, { headers: cookie ? { Cookie: cookie } : {} });
}

describe("share session", () => {
  it("keeps a token per link, sealed, HttpOnly, Lax, for /share only; forgets it on request", async () => {
    const set = await mod.setShareToken(new Request(page), "link-a", "token-a-secret-value");
    expect(set).toMatch(/^ferry_share=/);
    expect(set).toMatch(/HttpOnly/);
    expect(set).toMatch(/SameSite=Lax/);
    expect(set).toMatch(/Path=\/share/);
    expect(set).not.toMatch(/Secure/);
    expect(set).not.toContain("token-a-secret-value");
    expect(await mod.getShareToken(next(page, set), "link-a")).toBe("token-a-secret-value");
    expect(await mod.getShareToken(next(page, set), "link-b")).toBeNull();
    const cleared = await mod.setShareToken(next(page, set), "link-a", null);
    expect(await mod.getShareToken(next(page, cleared), "link-a")).toBeNull();
  });

  it("is Secure with the __Secure- name under HTTPS (directly or behind a proxy that says so)", async () => {
    const direct = await mod.setShareToken(new Request(page.replace("http:", "https:")), "link-a", "t");
    expect(direct).toMatch(/^__Secure-ferry_share=.*Secure/);
    const proxied = await mod.setShareToken(new Request(page, { headers: { "X-Forwarded-Proto": "https" } }), "link-a", "t");
    expect(proxied).toMatch(/^__Secure-ferry_share=.*Secure/);
  });

  it("remembers the last ten links, dropping the least recently used", async () => {
    let cookie = "";
    for (let i = 0; i < 12; i++) cookie = await mod.setShareToken(next(page, cookie), `link-${i}`, `token-${i}`, 1000 + i);
    expect(await mod.getShareToken(next(page, cookie), "link-0")).toBeNull();
    expect(await mod.getShareToken(next(page, cookie), "link-1")).toBeNull();
    for (let i = 2; i < 12; i++) expect(await mod.getShareToken(next(page, cookie), `link-${i}`)).toBe(`token-${i}`);
  });

  it("gives a browser one device id that it keeps, and refuses a forged one", async () => {
    const first = await mod.deviceFingerprint(new Request(page));
    expect(first.fingerprint).toMatch(/^[0-9a-f-]{36}$/);
    expect(first.setCookie).toMatch(/^ferry_device=.*HttpOnly.*/);
    const again = await mod.deviceFingerprint(next(page, first.setCookie));
    expect(again.fingerprint).toBe(first.fingerprint);
    const forged = await mod.deviceFingerprint(new Request(page, { headers: { Cookie: "ferry_device=InNvbWVvbmUtZWxzZSI%3D" } }));
    expect(forged.fingerprint).not.toBe("someone-else");
    expect(forged.fingerprint).not.toBe(first.fingerprint);
  });
});
