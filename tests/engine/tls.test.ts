import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { get } from "node:https";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { PERMISSION_FULL } from "../../contract/permissions";
import { startTestEngine, type TestEngine } from "../support/engine";

const run = promisify(execFile);

let dir: string;
let ca: Buffer;
let t: TestEngine;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "ferry-tls-"));
  const [cert, key] = [path.join(dir, "cert.pem"), path.join(dir, "key.pem")];
  await run("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", cert]);
  ca = await readFile(cert);
  t = await startTestEngine({ FERRY_TLS_CERT: cert, FERRY_TLS_KEY: key, FERRY_FILE_TLS_PORT: "0" });
});
afterAll(async () => {
  await t?.stop();
  await rm(dir, { recursive: true, force: true });
});

function httpsText(url: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    get(url, { ca }, (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
    }).on("error", reject);
  });
}

describe("file server with TLS", () => {
  it("serves the same file server on the TLS port, and /api/service/info names it", async () => {
    const tlsUrl = t.engine.fileServer.tlsUrl!;
    expect(tlsUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(await httpsText(`${tlsUrl}/health`)).toEqual({ status: 200, text: "ok" });
    const user = await t.createUser("secure", { permission: PERMISSION_FULL });
    const server = (await t.call("GET", "/api/service/info", { token: user.token })).body.data.server;
    expect(server.ssl_port).toBe(Number(new URL(tlsUrl).port));
    expect(server.no_ssl_port).toBe(Number(new URL(t.fileUrl).port));

    // Socket commands over wss, the certificate checked against the test's CA.
    const socket = new WebSocket(`${tlsUrl.replace("https", "wss")}/ws`, { ca });
    await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
    const replies: { id: number; code: number; data: unknown }[] = [];
    socket.on("message", (data) => replies.push(JSON.parse(String(data))));
    socket.send(JSON.stringify({ id: 1, cmd: "login", args: { token: user.socketToken } }));
    socket.send(JSON.stringify({ id: 2, cmd: "mkdir", args: { groupId: 0, path: "/", name: "over tls" } }));
    socket.send(JSON.stringify({ id: 3, cmd: "list", args: { groupId: 0, path: "/" } }));
    await expect.poll(() => replies.length).toBe(3);
    expect(replies.map((r) => r.code)).toEqual([200, 200, 200]);
    expect((replies[2]!.data as { names: string[] }).names).toEqual(["over tls"]);
    socket.close();
  });

  it("refuses a certificate without its key (and the reverse) at start", async () => {
    const { loadConfig, ConfigError } = await import("../../server/config");
    expect(() => loadConfig({ FERRY_TLS_CERT: "/x/cert.pem" })).toThrow(ConfigError);
    expect(() => loadConfig({ FERRY_TLS_KEY: "/x/key.pem" })).toThrow(/FERRY_TLS_CERT and FERRY_TLS_KEY go together/);
  });
});
