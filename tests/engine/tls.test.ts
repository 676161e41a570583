import { execFile } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { get } from "node:https";
import { connect as netConnect } from "node:net";
import { connect as tlsConnect } from "node:tls";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { PERMISSION_FULL } from "../../contract/permissions";
import { TLS_CERT_MAX } from "../../contract/tls";
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

/** A certificate and key made by the openssl CLI: RSA of `bits` (or an EC key), valid `days` (-1: expired yesterday). */
async function makeCertificate(name: string, options: { bits?: number; ec?: boolean; days?: number } = {}): Promise<{ cert: string; key: string }> {
  const base = path.join(dir, `${name}-${Math.random().toString(36).slice(2)}`);
  const [cert, key, csr] = [`${base}.crt`, `${base}.key`, `${base}.csr`];
  const newkey = options.ec ? ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"] : ["-newkey", `rsa:${options.bits ?? 2048}`];
  const subject = ["-subj", `/CN=${name}`, "-addext", `subjectAltName=DNS:${name},IP:127.0.0.1`];
  if ((options.days ?? 30) < 0) {
    // openssl req refuses a negative validity; x509 -days -1 signs one that ended yesterday.
    await run("openssl", ["req", "-new", ...newkey, "-nodes", ...subject, "-keyout", key, "-out", csr]);
    await run("openssl", ["x509", "-req", "-in", csr, "-signkey", key, "-days", "-1", "-out", cert]);
  } else {
    await run("openssl", ["req", "-x509", ...newkey, "-nodes", "-days", String(options.days ?? 30), ...subject, "-keyout", key, "-out", cert]);
  }
  return { cert: await readFile(cert, "utf8"), key: await readFile(key, "utf8") };
}

/** The SHA-256 fingerprint of the certificate a real TLS client is shown on `port`. */
function servedFingerprint(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: "127.0.0.1", port, rejectUnauthorized: false }, () => {
      const fingerprint = socket.getPeerCertificate().fingerprint256;
      socket.end();
      resolve(fingerprint);
    });
    socket.once("error", reject);
  });
}

/** Moves a test engine's clock up to the real time (certificates are made with the real one). */
function catchUp(engine: TestEngine) {
  engine.clock.advance(Math.max(0, Date.now() - engine.clock.now()));
}

/** Whether a TCP connection to `port` is accepted. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = netConnect({ host: "127.0.0.1", port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

describe("TLS certificate uploaded in the console", () => {
  let e: TestEngine;
  let admin: string;
  let good: { cert: string; key: string };
  // The test clock stands still from the engine's start; certificates made since begin later.
  const upload = (body: { certificate: string; privateKey: string }) => {
    catchUp(e);
    return e.call("PUT", "/api/admin/tls/certificate", { token: admin, body });
  };
  const info = async () => (await e.call("GET", "/api/admin/tls", { token: admin })).body.data;

  beforeAll(async () => {
    e = await startTestEngine({ FERRY_FILE_TLS_PORT: "0" });
    admin = await e.adminToken();
    good = await makeCertificate("files.example.com");
  });
  afterAll(async () => {
    await e?.stop();
  });

  it("starts without a certificate: no TLS port, plain open", async () => {
    const now = await info();
    expect(now).toMatchObject({ certificate: null, source: null, tlsPort: null, plainDisabled: false, plainPort: Number(new URL(e.fileUrl).port) });
    expect(e.engine.fileServer.tlsUrl).toBeNull();
  });

  it("refuses what the spec refuses, with its code, and changes nothing", async () => {
    const short = await makeCertificate("short.example", { bits: 1024 });
    const expired = await makeCertificate("old.example", { days: -1 });
    const ec = await makeCertificate("ec.example", { ec: true });
    const other = await makeCertificate("other.example");
    const cases: [string, { certificate: string; privateKey: string }, number][] = [
      ["RSA 1024", { certificate: short.cert, privateKey: short.key }, 4029],
      ["expired", { certificate: expired.cert, privateKey: expired.key }, 4030],
      ["EC key", { certificate: ec.cert, privateKey: ec.key }, 4031],
      ["someone else's key", { certificate: good.cert, privateKey: other.key }, 4032],
      ["not a certificate", { certificate: "hello", privateKey: good.key }, 4520],
      ["a key where the certificate goes", { certificate: good.key, privateKey: good.key }, 4520],
      ["not a key", { certificate: good.cert, privateKey: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n" }, 4521],
    ];
    for (const [what, body, code] of cases) {
      const reply = await upload(body);
      expect({ what, code: reply.body.code, status: reply.status }).toEqual({ what, code, status: 400 });
    }
    // Too large: refused by the schema before anything is parsed.
    expect((await upload({ certificate: "x".repeat(TLS_CERT_MAX + 1), privateKey: good.key })).body.code).toBe(400);
    expect((await info()).certificate).toBeNull();
    expect(e.engine.fileServer.tlsUrl).toBeNull();
  });

  it("refuses a certificate that is not valid yet on the engine's clock (4522)", async () => {
    catchUp(e);
    e.clock.advance(-2 * 24 * 3600 * 1000);
    try {
      expect((await e.call("PUT", "/api/admin/tls/certificate", { token: admin, body: { certificate: good.cert, privateKey: good.key } })).body.code).toBe(4522);
    } finally {
      e.clock.advance(2 * 24 * 3600 * 1000);
    }
    admin = await e.adminToken();
  });

  it("accepts a good RSA 2048 certificate: shows its domain and validity, stores the key 0600, and serves it at once", async () => {
    const reply = await upload({ certificate: good.cert, privateKey: good.key });
    expect(reply.body.code).toBe(200);
    const data = reply.body.data;
    const leaf = new X509Certificate(good.cert);
    expect(data.certificate).toMatchObject({ domains: ["files.example.com", "127.0.0.1"], state: "valid", expiresSoon: true, keyBits: 2048, selfSigned: true, fingerprint: leaf.fingerprint256 });
    expect(data.certificate!.validTo).toBe(Date.parse(leaf.validTo));
    expect(data.source).toBe("uploaded");
    expect(data.tlsPort).toBeGreaterThan(0);
    expect((await stat(path.join(e.dataDir, "tls", "server-key.pem"))).mode & 0o777).toBe(0o600);
    // A real TLS client on the TLS port, no restart in between.
    expect(await servedFingerprint(data.tlsPort!)).toBe(leaf.fingerprint256);
    const user = await e.createUser("tlsuser", { permission: PERMISSION_FULL });
    const server = (await e.call("GET", "/api/service/info", { token: user.token })).body.data.server;
    expect(server.ssl_port).toBe(data.tlsPort);
  });

  it("swaps the certificate of the running TLS port: new connections get the new one", async () => {
    const before = (await info()).tlsPort!;
    const next = await makeCertificate("next.example.com", { days: 400 });
    const reply = await upload({ certificate: next.cert, privateKey: next.key });
    expect(reply.body.code).toBe(200);
    expect(reply.body.data.tlsPort).toBe(before);
    expect(reply.body.data.certificate).toMatchObject({ domains: ["next.example.com", "127.0.0.1"], expiresSoon: false });
    expect(await servedFingerprint(before)).toBe(new X509Certificate(next.cert).fingerprint256);
    good = next;
  });

  it("disable non-TLS closes the plain port at once (and its sockets), service info says so; enabling opens it again", async () => {
    const plainPort = Number(new URL(e.fileUrl).port);
    const user = await e.createUser("plainuser", { permission: PERMISSION_FULL });
    const socket = new WebSocket(`${e.fileUrl.replace("http", "ws")}/ws`);
    await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
    const closed = new Promise((resolve) => socket.once("close", resolve));

    const off = await e.call("PUT", "/api/admin/tls/plain", { token: admin, body: { plainDisabled: true } });
    expect(off.body.code).toBe(200);
    expect(off.body.data).toMatchObject({ plainDisabled: true, plainPort: null });
    await closed;
    expect(await accepts(plainPort)).toBe(false);
    expect(await accepts(off.body.data.tlsPort!)).toBe(true);
    const server = (await e.call("GET", "/api/service/info", { token: user.token })).body.data.server;
    expect(server).toMatchObject({ no_ssl_port: 0, ssl_port: off.body.data.tlsPort });
    // The certificate cannot go while it is the only way in.
    expect((await e.call("DELETE", "/api/admin/tls/certificate", { token: admin })).body.code).toBe(4524);

    // Another engine on the same data directory starts with the plain port closed.
    const { loadConfig } = await import("../../server/config");
    const { startEngine } = await import("../../server/engine");
    const second = await startEngine(loadConfig({ FERRY_DATA_DIR: e.dataDir, DATABASE_URL: e.databaseUrl, FERRY_HOST: "127.0.0.1", FERRY_API_PORT: "0", FERRY_FILE_PORT: "0", FERRY_FILE_TLS_PORT: "0", FERRY_HASHID_SALT: "test-salt", FERRY_LOG_LEVEL: "silent" }), e.clock);
    try {
      expect(second.fileServer.plainListening).toBe(false);
      expect(await servedFingerprint(Number(new URL(second.fileServer.tlsUrl!).port))).toBe(new X509Certificate(good.cert).fingerprint256);
    } finally {
      await second.stop();
    }

    const on = await e.call("PUT", "/api/admin/tls/plain", { token: admin, body: { plainDisabled: false } });
    expect(on.body.data).toMatchObject({ plainDisabled: false, plainPort: plainPort });
    expect(await accepts(plainPort)).toBe(true);
    expect((await e.call("GET", "/api/service/info", { token: user.token })).body.data.server.no_ssl_port).toBe(plainPort);
  });

  it("removing the uploaded certificate closes the TLS port; non-TLS cannot be disabled without one (4523)", async () => {
    const port = (await info()).tlsPort!;
    const removed = await e.call("DELETE", "/api/admin/tls/certificate", { token: admin });
    expect(removed.body.data).toMatchObject({ certificate: null, source: null, tlsPort: null });
    expect(await accepts(port)).toBe(false);
    expect((await e.call("PUT", "/api/admin/tls/plain", { token: admin, body: { plainDisabled: true } })).body.code).toBe(4523);
    expect(await accepts(Number(new URL(e.fileUrl).port))).toBe(true);
  });

  it("is the administrator's alone", async () => {
    const user = await e.createUser("notadmin");
    expect((await e.call("GET", "/api/admin/tls", { token: user.token })).body.code).not.toBe(200);
    expect((await e.call("PUT", "/api/admin/tls/certificate", { token: user.token, body: { certificate: good.cert, privateKey: good.key } })).body.code).not.toBe(200);
  });
});

describe("an upload replaces FERRY_TLS_CERT's certificate without a restart", () => {
  it("serves the upload, and the environment's again once it is removed", async () => {
    const fromEnv = await readFile(path.join(dir, "cert.pem"), "utf8");
    const token = await t.adminToken();
    const port = Number(new URL(t.engine.fileServer.tlsUrl!).port);
    expect((await t.call("GET", "/api/admin/tls", { token })).body.data.source).toBe("environment");
    const next = await makeCertificate("uploaded.example");
    catchUp(t);
    expect((await t.call("PUT", "/api/admin/tls/certificate", { token, body: { certificate: next.cert, privateKey: next.key } })).body.code).toBe(200);
    expect(await servedFingerprint(port)).toBe(new X509Certificate(next.cert).fingerprint256);
    const back = await t.call("DELETE", "/api/admin/tls/certificate", { token });
    expect(back.body.data).toMatchObject({ source: "environment", tlsPort: port });
    expect(await servedFingerprint(port)).toBe(new X509Certificate(fromEnv).fingerprint256);
  });
});
