import { randomBytes } from "node:crypto";
import { request } from "node:http";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PERMISSION_FULL } from "../../contract/permissions";
import { connectFiles } from "../support/file-client";
import { peakRssMb, type Product, productAdminToken, productCodec, startProduct } from "../support/product";
import { blake3Hex, tusClient } from "../support/tus-client";

// The flood of issue 12: 50 parallel anonymous 100 MB bodies to every public action and route of
// the web, the REST API and the file server, against the product as `npm start` runs it. Each
// must be refused (a 4xx, or the connection closed) without being read into memory; afterwards
// both processes still answer, neither was restarted, neither's peak RSS passed 300 MB, and the
// data stored before is all there. Loopback only; every request has a deadline.

const MIB = 1024 * 1024;
const BODY_BYTES = 100 * MIB;
const PARALLEL = 50;
const RSS_LIMIT_MB = 300;
const REQUEST_DEADLINE_MS = 120_000;

const chunk = Buffer.alloc(MIB, "a");

interface Outcome {
  status: number | null;
  error: string | null;
  sent: number;
}

/** One hostile request: `BODY_BYTES` of one giant field, with Content-Length or chunked; stops when the server answers or hangs up. */
function hostile(url: string, method: string, contentType: string, chunked: boolean): Promise<Outcome> {
  return new Promise((resolve) => {
    const outcome: Outcome = { status: null, error: null, sent: 0 };
    const headers: Record<string, string> = { "content-type": contentType };
    if (!chunked) headers["content-length"] = String(BODY_BYTES);
    const req = request(url, { method, headers, agent: false });
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      clearTimeout(deadline);
      req.destroy();
      resolve(outcome);
    };
    const deadline = setTimeout(() => {
      outcome.error = "deadline";
      finish();
    }, REQUEST_DEADLINE_MS);
    req.on("response", (res) => {
      outcome.status = res.statusCode ?? null;
      res.resume();
      res.on("end", finish);
      res.on("error", finish);
    });
    req.on("error", (error: NodeJS.ErrnoException) => {
      // The server hanging up on an unread body is a refusal too.
      if (outcome.status === null) outcome.error = error.code ?? error.message;
      finish();
    });
    const pump = () => {
      while (!finished && outcome.sent < BODY_BYTES) {
        const prefix = outcome.sent === 0 ? Buffer.from(contentType.includes("json") ? '{"UK":"' : "UK=") : null;
        const piece = prefix ? Buffer.concat([prefix, chunk.subarray(prefix.length)]) : chunk;
        outcome.sent += piece.length;
        if (!req.write(piece)) return void req.once("drain", pump);
      }
      if (!finished) req.end();
    };
    pump();
  });
}

/** 50 of them at once; every one must be refused: a status below 500, or a hang-up before any answer. */
async function flood(url: string, method: string, contentType: string) {
  const outcomes = await Promise.all(Array.from({ length: PARALLEL }, (_, i) => hostile(url, method, contentType, i % 2 === 1)));
  const bad = outcomes.filter((o) => o.error === "deadline" || (o.status !== null && o.status >= 500));
  return { bad, statuses: [...new Set(outcomes.map((o) => o.status ?? o.error))] };
}

/**
 * The same as WebSocket frames on the file server's command socket: a raw connection upgrades, then
 * announces one 100 MB frame and streams it. The server must close with 1009 (message too big) from
 * the frame's header, before reading it. Resolves with the close code the server sent (-1: none).
 */
function hostileFrame(fileUrl: string): Promise<number> {
  return new Promise((resolve) => {
    const { hostname, port } = new URL(fileUrl);
    const socket = connect(Number(port), hostname);
    let received = Buffer.alloc(0);
    let upgraded = false;
    let sent = 0;
    let done = false;
    const finish = (code: number) => {
      if (done) return;
      done = true;
      clearTimeout(deadline);
      socket.destroy();
      resolve(code);
    };
    const deadline = setTimeout(() => finish(-1), REQUEST_DEADLINE_MS);
    const pump = () => {
      while (!done && sent < BODY_BYTES) {
        sent += chunk.length;
        if (!socket.write(chunk)) return void socket.once("drain", pump);
      }
    };
    socket.on("connect", () =>
      socket.write(`GET /ws HTTP/1.1\r\nHost: ${hostname}:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${randomBytes(16).toString("base64")}\r\nSec-WebSocket-Version: 13\r\n\r\n`),
    );
    socket.on("data", (data) => {
      received = Buffer.concat([received, data]);
      if (!upgraded) {
        const end = received.indexOf("\r\n\r\n");
        if (end < 0) return;
        if (!received.subarray(0, end).toString().startsWith("HTTP/1.1 101")) return finish(-2);
        upgraded = true;
        received = received.subarray(end + 4);
        // FIN + binary, masked, 64-bit length, mask key; then the payload.
        const header = Buffer.alloc(14);
        header[0] = 0x82;
        header[1] = 0x80 | 127;
        header.writeBigUInt64BE(BigInt(BODY_BYTES), 2);
        randomBytes(4).copy(header, 10);
        socket.write(header);
        pump();
      }
      // A close frame: opcode 8, then its status code in the first two payload bytes.
      if (received.length >= 4 && (received[0]! & 0x0f) === 0x8) finish(received.readUInt16BE(2));
    });
    socket.on("error", () => finish(-3));
    socket.on("close", () => finish(-4));
  });
}
let product: Product;
let pids: { engine: number; web: number };
let shareId = "";
let stored: { data: Buffer; hash: string };
let user: { account: string; password: string };

const status = async (url: string) => {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(10_000) })).status;
  } catch {
    return 0;
  }
};

beforeAll(async () => {
  product = await startProduct();
  pids = { engine: product.pid("engine"), web: product.pid("web") };
  // Data that must survive: a user, a committed file, a share link of it.
  const admin = await productAdminToken(product);
  user = { account: "keeper", password: "Str0ng#Keep2026" };
  const api = async (method: string, p: string, body: unknown, token: string) => {
    const res = await fetch(product.apiUrl + p, { method, headers: { "content-type": "application/json", authorization: `Bearer ${token}` }, body: JSON.stringify(body) });
    return (await res.json()) as { code: number; data: Record<string, unknown> };
  };
  const created = await api("POST", "/api/admin/users", { ...user, needUpdatePwd: false, permission: PERMISSION_FULL }, admin);
  expect(created.code).toBe(200);
  const signedIn = (await (
    await fetch(`${product.apiUrl}/api/user/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ UK: productCodec.encodeUK(user.account, user.password) }) })
  ).json()) as { data: { token: string; websocket_token: string } };
  const data = randomBytes(2 * MIB + 3);
  stored = { data, hash: await blake3Hex(data) };
  const tus = tusClient(product.fileUrl, signedIn.data.websocket_token);
  const upload = await tus.create({ groupId: "0", path: "/keep.bin" }, data.length, data);
  expect(upload.status).toBe(201);
  const files = await connectFiles(product.fileUrl, signedIn.data.websocket_token);
  await files.ok("commit", { uploadId: upload.id!, hash: stored.hash });
  await files.close();
  const share = await api("POST", "/api/share/link/create", { shareBaseUrl: product.webUrl, shareUrlType: 1, shareFiles: ["/keep.bin"] }, signedIn.data.token);
  expect(share.code).toBe(200);
  shareId = String(share.data.shareId);
}, 300_000);

afterAll(async () => {
  await product?.stop();
});

describe("a flood of 50 parallel anonymous 100 MB bodies", () => {
  it("to every web page action (forms and data requests) is refused unread", async () => {
    const paths = [
      "/signin",
      "/signin?_data=routes%2Fsignin",
      "/admin/signin",
      `/share/${shareId}`,
      `/share/${shareId}?_data=routes%2Fshare.%24shareId`,
      "/language",
      "/logout",
      "/session",
      "/reset-password",
      "/link/create",
      "/account/password",
      "/account/smtp",
      "/link",
      "/notification",
      "/personal",
      "/",
      "/no/such/page",
    ];
    for (const p of paths) {
      for (const type of ["application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]) {
        const { bad, statuses } = await flood(product.webUrl + p, "POST", type);
        expect({ p, type, bad: bad.length, statuses }).toEqual({ p, type, bad: 0, statuses });
        expect(await status(`${product.webUrl}/signin`), `web after ${p}`).toBe(200);
      }
    }
  });

  it("to every REST route is refused unread", async () => {
    const openapi = (await (await fetch(`${product.apiUrl}/api/openapi.json`)).json()) as { data: { paths: Record<string, Record<string, unknown>> } };
    // The file server's paths (their own servers) are flooded in the next test.
    const rest = Object.entries(openapi.data.paths).filter(([p]) => p.startsWith("/api/"));
    const routes = rest.flatMap(([p, methods]) => Object.keys(methods).map((m) => ({ method: m.toUpperCase(), path: p.replace(/\{[^}]+\}/g, "1") })));
    expect(routes.length).toBeGreaterThan(40);
    for (const { method, path: p } of [...routes, { method: "POST", path: "/api/no/such/route" }]) {
      const { bad, statuses } = await flood(product.apiUrl + p, method, "application/json");
      expect({ method, p, bad: bad.length, statuses }).toEqual({ method, p, bad: 0, statuses });
    }
    expect(await status(`${product.apiUrl}/api/health`)).toBe(200);
  });

  it("to the file server's uploads, downloads and previews, and as socket frames, is refused unread", async () => {
    for (const [method, p] of [
      ["POST", "/uploads/"],
      ["PATCH", "/uploads/0123456789abcdef"],
      ["POST", "/download/x.y/z"],
      ["POST", "/preview/x.y/z"],
      ["POST", "/health"],
      ["POST", "/nothing"],
    ] as const) {
      const { bad, statuses } = await flood(product.fileUrl + p, method, "application/offset+octet-stream");
      expect({ method, p, bad: bad.length, statuses }).toEqual({ method, p, bad: 0, statuses });
    }
    const closes = await Promise.all(Array.from({ length: PARALLEL }, () => hostileFrame(product.fileUrl)));
    // 1009: message too big, closed from its header before any of it is read.
    expect(new Set(closes)).toEqual(new Set([1009]));
  });

  it("leaves both processes running (never restarted), under 300 MB peak RSS, and nothing lost", async () => {
    expect(product.pid("engine")).toBe(pids.engine);
    expect(product.pid("web")).toBe(pids.web);
    expect(product.output).not.toMatch(/exited \(/);
    const rss = { engine: peakRssMb(pids.engine), web: peakRssMb(pids.web) };
    console.info(`flood: peak RSS engine ${rss.engine.toFixed(0)} MB, web ${rss.web.toFixed(0)} MB`);
    expect(rss.engine, `engine peak RSS ${rss.engine.toFixed(0)} MB`).toBeLessThan(RSS_LIMIT_MB);
    expect(rss.web, `web peak RSS ${rss.web.toFixed(0)} MB`).toBeLessThan(RSS_LIMIT_MB);

    expect(await status(`${product.webUrl}/signin`)).toBe(200);
    const signedIn = (await (
      await fetch(`${product.apiUrl}/api/user/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ UK: productCodec.encodeUK(user.account, user.password) }) })
    ).json()) as { code: number; data: { websocket_token: string } };
    expect(signedIn.code).toBe(200);
    const files = await connectFiles(product.fileUrl, signedIn.data.websocket_token);
    const { url } = await files.ok("download", { groupId: 0, paths: ["/keep.bin"] });
    await files.close();
    const body = Buffer.from(await (await fetch(product.fileUrl + url)).arrayBuffer());
    expect(Buffer.compare(body, stored.data)).toBe(0);
    expect(await status(`${product.webUrl}/share/${shareId}`)).toBe(200);
  });
});
