import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Envelope } from "../../contract/envelope";
import { loadConfig } from "../../server/config";
import { startTestEngine, type TestEngine } from "../support/engine";

let t: TestEngine;
let token: string;
let dir: string;

let root: string;

beforeAll(async () => {
  // The folder is set explicitly, so this also checks that FERRY_INSTALLERS_DIR is honoured.
  root = await mkdtemp(path.join(tmpdir(), "ferry-installers-"));
  dir = path.join(root, "installers");
  t = await startTestEngine({ FERRY_INSTALLERS_DIR: dir });
  token = (await t.createUser("installer_user")).token;
});
afterAll(async () => {
  await t?.stop();
  if (root) await rm(root, { recursive: true, force: true });
});

const get = (p: string, headers: Record<string, string> = {}) => fetch(t.url + p, { headers });
const envelopeOf = async (res: Response) => ({ status: res.status, body: (await res.json()) as Envelope });

/** Empties the installers folder and fills it with the given files. */
async function place(files: Record<string, Buffer | string>) {
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  for (const [name, content] of Object.entries(files)) await writeFile(path.join(dir, name), content);
}

describe("installer downloads", () => {
  it.each([
    ["exe", "application/vnd.microsoft.portable-executable"],
    ["deb", "application/vnd.debian.binary-package"],
    ["rpm", "application/x-rpm"],
    ["dmg", "application/x-apple-diskimage"],
  ])("serve the %s installer as an attachment with its exact bytes", async (platform, type) => {
    const bytes = randomBytes(300_000);
    await place({ [`Ferry-2.1.0.${platform}`]: bytes, [`Ferry-2.1.0.${platform}.sha256`]: "not this", "notes.txt": "nor this" });
    const res = await get(`/download/${platform}?token=${token}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe(type);
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="Ferry-2.1.0.${platform}"; filename*=UTF-8''Ferry-2.1.0.${platform}`);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("content-length")).toBe(String(bytes.length));
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it("pick the first matching file by name, in any case, skipping hidden files and folders", async () => {
    await place({ ".hidden.exe": "hidden", "b-setup.EXE": "b", "c-setup.exe": "c", "a-readme.txt": "text" });
    await mkdir(path.join(dir, "a-folder.exe"));
    const res = await get(`/download/exe?token=${token}`);
    expect(res.headers.get("content-disposition")).toContain(`filename="b-setup.EXE"`);
    expect(await res.text()).toBe("b");
  });

  it("accept the token as a bearer header too, and answer HEAD without the body", async () => {
    await place({ "setup.deb": "deb bytes" });
    const viaHeader = await get("/download/deb", { authorization: `Bearer ${token}` });
    expect(await viaHeader.text()).toBe("deb bytes");
    const head = await fetch(`${t.url}/download/deb?token=${token}`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe("9");
    expect(head.headers.get("content-disposition")).toContain("setup.deb");
  });

  it("name a file with quotes and Unicode exactly in filename*, with a plain-ASCII fallback", async () => {
    const name = `Ferry "Setup" 飞渡 (x64) 100%'s.exe`;
    await place({ [name]: "unicode" });
    const res = await get(`/download/exe?token=${token}`);
    const header = res.headers.get("content-disposition")!;
    expect(header).toBe(
      `attachment; filename="Ferry _Setup_ __ (x64) 100%'s.exe"; filename*=UTF-8''Ferry%20%22Setup%22%20%E9%A3%9E%E6%B8%A1%20%28x64%29%20100%25%27s.exe`,
    );
    const encoded = /filename\*=UTF-8''(.+)$/.exec(header)![1]!;
    expect(encoded).toMatch(/^[A-Za-z0-9!#$&+\-.^_`|~%]+$/);
    expect(decodeURIComponent(encoded)).toBe(name);
    expect(await res.text()).toBe("unicode");
  });

  it("answer 4204 in the caller's language when the platform has no installer", async () => {
    await place({ "setup.exe": "only windows" });
    const en = await envelopeOf(await get(`/download/dmg?token=${token}`));
    expect(en.status).toBe(400);
    expect(en.body).toMatchObject({ code: 4204, result: false, value: "Installer not available" });
    expect(en.body.message).toBe("No installer for this platform is available yet; please ask your administrator");
    const zh = await envelopeOf(await get(`/download/dmg?token=${token}`, { "accept-language": "zh-CN,zh;q=0.9" }));
    expect(zh.body).toMatchObject({ code: 4204, message: "暂无该平台的客户端安装包，请联系管理员" });

    await rm(dir, { recursive: true, force: true });
    expect((await envelopeOf(await get(`/download/exe?token=${token}`))).body.code).toBe(4204);
  });

  it("refuse an unknown platform with 400", async () => {
    await place({ "setup.exe": "x", "setup.zip": "x" });
    for (const platform of ["zip", "EXE", "..%2Fferry.db", "exe.exe"]) {
      const reply = await envelopeOf(await get(`/download/${platform}?token=${token}`));
      expect({ platform, status: reply.status, code: reply.body.code }).toEqual({ platform, status: 400, code: 400 });
    }
  });

  it("refuse a missing, invalid or revoked token with 1009", async () => {
    await place({ "setup.exe": "secret bytes" });
    for (const p of ["/download/exe", "/download/exe?token=", `/download/exe?token=${"x".repeat(43)}`, "/download/zip"]) {
      const reply = await envelopeOf(await get(p));
      expect({ p, status: reply.status, code: reply.body.code }).toEqual({ p, status: 400, code: 1009 });
    }
    const user = await t.createUser("installer_gone");
    await t.call("POST", "/api/user/logout", { token: user.token });
    expect((await envelopeOf(await get(`/download/exe?token=${user.token}`))).body.code).toBe(1009);
    const zh = await envelopeOf(await get("/download/exe", { "accept-language": "zh" }));
    expect(zh.body.message).toBe("登录已失效，请重新登录");
  });
});

describe("installers offered in /api/service/info", () => {
  const offered = async (auth: string) => {
    const reply = await t.call<{ server: { installers: string[] } }>("GET", "/api/service/info", { token: auth });
    expect(reply.body.code).toBe(200);
    return reply.body.data!.server.installers;
  };

  it("name exactly the platforms that have an installer, so the web offers a client only when there is one", async () => {
    await rm(dir, { recursive: true, force: true });
    expect(await offered(token)).toEqual([]);
    await place({});
    expect(await offered(token)).toEqual([]);
    // Hidden files, folders and other names do not count; any case does.
    await place({ ".hidden.exe": "x", "notes.txt": "x", "Ferry.DEB": "x", "ferry.rpm.sha256": "x" });
    await mkdir(path.join(dir, "folder.dmg"));
    expect(await offered(token)).toEqual(["deb"]);
    await place({ "ferry.dmg": "x", "ferry.exe": "x", "ferry.rpm": "x", "ferry.deb": "x" });
    expect(await offered(token)).toEqual(["exe", "deb", "rpm", "dmg"]);
  });
});

describe("installers folder option", () => {
  it("defaults to <data dir>/installers and follows FERRY_INSTALLERS_DIR", () => {
    expect(loadConfig({ FERRY_DATA_DIR: "/srv/ferry" }).installersDir).toBe(path.resolve("/srv/ferry/installers"));
    expect(loadConfig({ FERRY_DATA_DIR: "/srv/ferry", FERRY_INSTALLERS_DIR: "/opt/clients" }).installersDir).toBe(path.resolve("/opt/clients"));
    expect(t.engine.services.config.installersDir).toBe(dir);
  });
});
