import { randomBytes, randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { request } from "node:http";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ErrorCode } from "../../contract/errors";
import { P2P_RELAY, type P2pLiveEntry } from "../../contract/p2p";
import { PERMISSION_FULL } from "../../contract/permissions";
import { blake3Of } from "../../server/uploads/hash";
import type { TestEngine } from "../support/engine";
import { P2P_FILES, p2pSuite, type Page, setP2p, until } from "../support/p2p";

/*
 * The P2P relay through the file server (docs/p2p.md, "Relay and hand-over"): the sender appends a
 * file's bytes by PATCH /p2p/<transfer>/<file> at Ferry-Offset, either party asks HEAD, the receiver
 * reads by GET (Range), waiting while the sender writes; caps (4703), who may (4700), the relay
 * setting (4719), the hash check, and held bytes deleted when the transfer ends.
 */

const p2p = p2pSuite("p2p_relay", { permission: PERMISSION_FULL });
const { user, accepted, admin } = p2p;

const relayUrl = (t: TestEngine, id: string, file: number) => `${t.fileUrl}${P2P_RELAY.path}${id}/${file}`;
const heldDir = (t: TestEngine, id: string) => path.join(t.engine.services.spaces.root, ".ferry-tmp", "p2p", id);

async function patch(t: TestEngine, token: string, id: string, file: number, offset: number, body: Buffer) {
  const r = await fetch(relayUrl(t, id, file), { method: "PATCH", headers: { authorization: `Bearer ${token}`, [P2P_RELAY.offsetHeader]: String(offset) }, body: new Uint8Array(body) });
  const text = await r.text();
  return { status: r.status, offset: r.headers.get(P2P_RELAY.offsetHeader), code: text ? (JSON.parse(text) as { code: number }).code : null };
}

async function head(t: TestEngine, token: string, id: string, file: number) {
  const r = await fetch(relayUrl(t, id, file), { method: "HEAD", headers: { authorization: `Bearer ${token}` } });
  return { status: r.status, offset: r.headers.get(P2P_RELAY.offsetHeader), size: r.headers.get(P2P_RELAY.sizeHeader) };
}

async function get(t: TestEngine, token: string, id: string, file: number, range?: string) {
  const r = await fetch(relayUrl(t, id, file), { headers: { authorization: `Bearer ${token}`, ...(range ? { range } : {}) } });
  return { status: r.status, headers: r.headers, body: Buffer.from(await r.arrayBuffer()) };
}

/** Asks `ask` again (every 20 ms, up to 5 s) until its answer passes `ok`; the last answer. */
async function poll<T>(ask: () => Promise<T>, ok: (answer: T) => boolean): Promise<T> {
  let answer = await ask();
  for (let i = 0; i < 250 && !ok(answer); i++) {
    await new Promise((r) => setTimeout(r, 20));
    answer = await ask();
  }
  return answer;
}

const codeOf = async (r: Response) => ((await r.json()) as { code: number }).code;

/** A PATCH whose body is sent by the test: `Content-Length: length`, `first` written at once; `answer` is the response (status, Ferry-Offset, code). */
function openPatch(t: TestEngine, token: string, id: string, file: number, offset: number, length: number, first: Buffer) {
  let req!: ReturnType<typeof request>;
  const answer = new Promise<{ status: number; offset: string | undefined; code: number | null }>((resolve, reject) => {
    req = request(relayUrl(t, id, file), { method: "PATCH", headers: { authorization: `Bearer ${token}`, [P2P_RELAY.offsetHeader]: String(offset), "content-length": String(length) } }, (res) => {
      const parts: Buffer[] = [];
      res.on("data", (c: Buffer) => parts.push(c));
      res.on("end", () => {
        const text = Buffer.concat(parts).toString();
        resolve({ status: res.statusCode ?? 0, offset: res.headers[P2P_RELAY.offsetHeader.toLowerCase()] as string | undefined, code: text ? (JSON.parse(text) as { code: number }).code : null });
      });
    });
    req.on("error", reject);
  });
  answer.catch(() => undefined);
  req.write(first);
  return { req, answer };
}

/** A GET of the relay that the test holds open: its status once the headers came. */
function openGet(t: TestEngine, token: string, id: string, file: number, range: string) {
  let req!: ReturnType<typeof request>;
  const status = new Promise<{ status: number; retryAfter: string | undefined }>((resolve, reject) => {
    req = request(relayUrl(t, id, file), { headers: { authorization: `Bearer ${token}`, range } }, (res) => {
      res.on("data", () => undefined);
      res.on("error", () => undefined);
      resolve({ status: res.statusCode ?? 0, retryAfter: res.headers["retry-after"] as string | undefined });
    });
    req.on("error", reject);
  });
  status.catch(() => undefined);
  req.end();
  return { req, status };
}

describe("relay PATCH, HEAD and GET", () => {
  it("a file in two PATCHes (a wrong offset in between answers 409 and what is held), HEAD for both parties, the live view, the GET", async () => {
    const { a, b, transferId } = await accepted();
    const bytes = randomBytes(3000);
    expect(await head(p2p.t, a.socketToken, transferId, 1)).toEqual({ status: 200, offset: "0", size: "3000" });

    expect(await patch(p2p.t, a.socketToken, transferId, 1, 0, bytes.subarray(0, 1200))).toMatchObject({ status: 204, offset: "1200" });
    // Another offset than what is held: 409 and the held offset; nothing of the body kept.
    expect(await patch(p2p.t, a.socketToken, transferId, 1, 1000, bytes.subarray(1000, 1500))).toMatchObject({ status: 409, offset: "1200", code: ErrorCode.InvalidData });
    expect(await patch(p2p.t, a.socketToken, transferId, 1, 0, bytes.subarray(0, 100))).toMatchObject({ status: 409, offset: "1200" });
    expect(await head(p2p.t, b.socketToken, transferId, 1)).toEqual({ status: 200, offset: "1200", size: "3000" });

    // The relay's bytes show on the administrator's live view as progress of path relay.
    const live = await admin<Page<P2pLiveEntry>>(`/api/transmission/ptp/current?text=${a.account}`);
    expect(live.list[0]).toMatchObject({ transferId, status: "running", path: "relay", doneBytes: 1200, inFlight: [{ file: 1, received: 1200, size: 3000 }] });

    expect(await patch(p2p.t, a.socketToken, transferId, 1, 1200, bytes.subarray(1200))).toMatchObject({ status: 204, offset: "3000" });
    expect(await head(p2p.t, a.socketToken, transferId, 1)).toEqual({ status: 200, offset: "3000", size: "3000" });
    const whole = await get(p2p.t, b.socketToken, transferId, 1);
    expect(whole.status).toBe(200);
    expect(whole.body.equals(bytes)).toBe(true);
    const part = await get(p2p.t, b.socketToken, transferId, 1, "bytes=100-199");
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe("bytes 100-199/3000");
    expect(part.body.equals(bytes.subarray(100, 200))).toBe(true);
    expect((await admin<Page<P2pLiveEntry>>(`/api/transmission/ptp/current?text=${a.account}`)).list[0]!.doneBytes).toBe(3000);
    // Every byte held: a further PATCH has no room in the file.
    expect(await patch(p2p.t, a.socketToken, transferId, 1, 3000, Buffer.from("x"))).toMatchObject({ status: 413, offset: "3000" });
  });

  it("a GET while the sender is still writing waits for the rest", async () => {
    const { a, b, transferId } = await accepted();
    const bytes = randomBytes(3000);
    expect((await patch(p2p.t, a.socketToken, transferId, 1, 0, bytes.subarray(0, 1000))).status).toBe(204);
    const reply = await fetch(relayUrl(p2p.t, transferId, 1), { headers: { authorization: `Bearer ${b.socketToken}`, range: "bytes=500-" } });
    expect(reply.status).toBe(206);
    expect(reply.headers.get("content-range")).toBe("bytes 500-2999/3000");
    const reader = reply.body!.getReader();
    const got: Buffer[] = [];
    let n = 0;
    // What is held arrives first, then the response waits.
    while (n < 500) {
      const { value, done } = await reader.read();
      expect(done).toBe(false);
      got.push(Buffer.from(value!));
      n += value!.length;
    }
    expect(n).toBe(500);
    expect((await patch(p2p.t, a.socketToken, transferId, 1, 1000, bytes.subarray(1000))).status).toBe(204);
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      got.push(Buffer.from(value));
    }
    expect(Buffer.concat(got).equals(bytes.subarray(500))).toBe(true);
  });

  it("bytes past the file's size are refused before they are read, and nothing is written; a Range past the size is 416", async () => {
    const { a, b, transferId } = await accepted();
    expect(await patch(p2p.t, a.socketToken, transferId, 0, 0, randomBytes(1001))).toMatchObject({ status: 413, offset: "0", code: ErrorCode.InvalidData });
    expect(await head(p2p.t, a.socketToken, transferId, 0)).toMatchObject({ offset: "0" });
    expect((await patch(p2p.t, a.socketToken, transferId, 0, 0, randomBytes(600))).status).toBe(204);
    expect(await patch(p2p.t, a.socketToken, transferId, 0, 600, randomBytes(401))).toMatchObject({ status: 413, offset: "600" });
    expect(await head(p2p.t, b.socketToken, transferId, 0)).toMatchObject({ offset: "600" });
    const past = await get(p2p.t, b.socketToken, transferId, 0, "bytes=1000-");
    expect(past.status).toBe(416);
    expect(past.headers.get("content-range")).toBe("bytes */1000");
    // A PATCH without a length is not read either.
    const chunked = await new Promise<number>((resolve, reject) => {
      const req = request(relayUrl(p2p.t, transferId, 0), { method: "PATCH", headers: { authorization: `Bearer ${a.socketToken}`, [P2P_RELAY.offsetHeader]: "600", "transfer-encoding": "chunked" } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on("error", reject);
      req.end(randomBytes(10));
    });
    expect(chunked).toBe(411);
    expect(await head(p2p.t, b.socketToken, transferId, 0)).toMatchObject({ offset: "600" });
  });

  it("the settings' maxTransferBytes lowered after the offer: 4703 before the body is read", async () => {
    const { a, transferId } = await accepted();
    expect((await patch(p2p.t, a.socketToken, transferId, 0, 0, randomBytes(1000))).status).toBe(204);
    await setP2p(p2p.t, { maxTransferBytes: 1500 });
    try {
      expect(await patch(p2p.t, a.socketToken, transferId, 1, 0, randomBytes(600))).toMatchObject({ status: 413, code: ErrorCode.P2pRelayFull, offset: "0" });
      expect(await head(p2p.t, a.socketToken, transferId, 1)).toMatchObject({ offset: "0" });
      expect((await patch(p2p.t, a.socketToken, transferId, 1, 0, randomBytes(500))).status).toBe(204);
    } finally {
      await setP2p(p2p.t, { maxTransferBytes: 0 });
    }
  });

  it("someone not a party hears 4700 (404) as for a transfer that does not exist; the receiver cannot write, the sender cannot read", async () => {
    const { a, b, transferId } = await accepted();
    const c = await user();
    expect((await patch(p2p.t, a.socketToken, transferId, 0, 0, randomBytes(10))).status).toBe(204);
    for (const [token, id] of [
      [c.socketToken, transferId],
      [a.socketToken, randomUUID()],
    ] as const) {
      expect(await patch(p2p.t, token, id, 0, 10, randomBytes(10))).toMatchObject({ status: 404, code: ErrorCode.P2pNoSuchTransfer });
      expect((await head(p2p.t, token, id, 0)).status).toBe(404);
      const r = await fetch(relayUrl(p2p.t, id, 0), { headers: { authorization: `Bearer ${token}` } });
      expect([r.status, await codeOf(r)]).toEqual([404, ErrorCode.P2pNoSuchTransfer]);
    }
    expect(await patch(p2p.t, b.socketToken, transferId, 0, 10, randomBytes(10))).toMatchObject({ status: 404, code: ErrorCode.P2pNoSuchTransfer });
    const r = await fetch(relayUrl(p2p.t, transferId, 0), { headers: { authorization: `Bearer ${a.socketToken}` } });
    expect([r.status, await codeOf(r)]).toEqual([404, ErrorCode.P2pNoSuchTransfer]);
    // No token, or the REST token instead of the socket's: 401.
    expect(await patch(p2p.t, a.token, transferId, 0, 10, randomBytes(10))).toMatchObject({ status: 401, code: ErrorCode.InvalidToken });
    expect((await fetch(relayUrl(p2p.t, transferId, 0), { method: "PATCH", headers: { [P2P_RELAY.offsetHeader]: "10" }, body: new Uint8Array(10) })).status).toBe(401);
    // A file index that is not in the transfer.
    expect(await patch(p2p.t, a.socketToken, transferId, 7, 0, randomBytes(10))).toMatchObject({ status: 400, code: ErrorCode.ParameterError });
    expect(await head(p2p.t, b.socketToken, transferId, 0)).toMatchObject({ offset: "10" });
  });

  it("the relay switched off in the settings refuses with 4719", async () => {
    const { a, b, transferId } = await accepted();
    await setP2p(p2p.t, { relay: false });
    try {
      expect(await patch(p2p.t, a.socketToken, transferId, 0, 0, randomBytes(10))).toMatchObject({ status: 400, code: ErrorCode.P2pPathOff });
      const r = await fetch(relayUrl(p2p.t, transferId, 0), { headers: { authorization: `Bearer ${b.socketToken}` } });
      expect([r.status, await codeOf(r)]).toEqual([400, ErrorCode.P2pPathOff]);
    } finally {
      await setP2p(p2p.t, { relay: true });
    }
    expect(await head(p2p.t, a.socketToken, transferId, 0)).toMatchObject({ status: 200, offset: "0" });
  });

  it("held bytes are gone once the transfer ends; a request about it then answers 4710", async () => {
    const { a, sender, transferId } = await accepted();
    expect((await patch(p2p.t, a.socketToken, transferId, 0, 0, randomBytes(1000))).status).toBe(204);
    expect(existsSync(path.join(heldDir(p2p.t, transferId), "0"))).toBe(true);
    expect(await sender.files.ok("p2pEnd", { transferId, result: "cancelled" })).toEqual({ status: "cancelled" });
    await until(() => !existsSync(heldDir(p2p.t, transferId)));
    expect(existsSync(heldDir(p2p.t, transferId))).toBe(false);
    const r = await fetch(relayUrl(p2p.t, transferId, 0), { method: "PATCH", headers: { authorization: `Bearer ${a.socketToken}`, [P2P_RELAY.offsetHeader]: "1000" }, body: Buffer.alloc(0) });
    expect([r.status, await codeOf(r)]).toEqual([409, ErrorCode.P2pWrongState]);
  });

  it("a sender whose connection drops mid-body keeps the bytes written, and resumes from there", async () => {
    const { a, b, transferId } = await accepted();
    const bytes = randomBytes(3000);
    const req = request(relayUrl(p2p.t, transferId, 1), { method: "PATCH", headers: { authorization: `Bearer ${a.socketToken}`, [P2P_RELAY.offsetHeader]: "0", "content-length": "3000" } });
    req.on("error", () => undefined);
    req.write(bytes.subarray(0, 1100));
    expect(await poll(() => head(p2p.t, b.socketToken, transferId, 1), (h) => h.offset === "1100")).toMatchObject({ offset: "1100" });
    req.destroy();
    // What was written stays held (not a byte more), and the rest goes on from there.
    expect(await patch(p2p.t, a.socketToken, transferId, 1, 0, bytes)).toMatchObject({ status: 409, offset: "1100" });
    expect(await patch(p2p.t, a.socketToken, transferId, 1, 1100, bytes.subarray(1100))).toMatchObject({ status: 204, offset: "3000" });
    expect((await get(p2p.t, b.socketToken, transferId, 1)).body.equals(bytes)).toBe(true);
  });

  it("a whole held file is hashed: a sender's hash that differs answers 4706 and the held bytes go; the same hash waits for the receiver's", async () => {
    const { a, sender, receiver, transferId } = await accepted();
    const bytes = randomBytes(1000);
    const hash = await blake3Of((async function* () {
      yield bytes;
    })());
    expect((await patch(p2p.t, a.socketToken, transferId, 0, 0, bytes)).status).toBe(204);
    expect((await sender.files.cmd("p2pFileDone", { transferId, file: 0, hash: "f".repeat(64) })).code).toBe(ErrorCode.P2pHashMismatch);
    expect(await head(p2p.t, a.socketToken, transferId, 0)).toMatchObject({ offset: "0" });
    expect(existsSync(path.join(heldDir(p2p.t, transferId), "0"))).toBe(false);
    // Sent again; the sender's hash first this time, and the PATCH that completes the file compares it.
    expect(await sender.files.ok("p2pFileDone", { transferId, file: 0, hash })).toEqual({ state: "waiting" });
    expect((await patch(p2p.t, a.socketToken, transferId, 0, 0, bytes)).status).toBe(204);
    expect(await receiver.files.ok("p2pFileDone", { transferId, file: 0, hash })).toEqual({ state: "match" });
    // Bytes that are not the sender's (its hash said first): refused whole, and nothing stays.
    expect(await sender.files.ok("p2pFileDone", { transferId, file: 2, hash: "e".repeat(64) })).toEqual({ state: "waiting" });
    expect(await patch(p2p.t, a.socketToken, transferId, 2, 0, randomBytes(10))).toMatchObject({ status: 409, code: ErrorCode.P2pHashMismatch, offset: "0" });
    expect(await head(p2p.t, a.socketToken, transferId, 2)).toMatchObject({ offset: "0" });
  });

  it("at start, held bytes of a transfer that ended or does not exist are deleted; an open transfer's stay", async () => {
    const { a, b, transferId } = await accepted();
    expect((await patch(p2p.t, a.socketToken, transferId, 0, 0, randomBytes(700))).status).toBe(204);
    const orphan = heldDir(p2p.t, randomUUID());
    await mkdir(orphan, { recursive: true });
    await writeFile(path.join(orphan, "0"), randomBytes(50));
    await p2p.t.restart();
    expect(existsSync(orphan)).toBe(false);
    expect(await head(p2p.t, b.socketToken, transferId, 0)).toMatchObject({ status: 200, offset: "700" });
  });
});

describe("two PATCHes at once, a zero-length PATCH, GETs per user", () => {
  it("a newer PATCH takes over from one still writing: the one stopped answers 409 with Ferry-Offset, the newer 204", async () => {
    const { a, b, transferId } = await accepted();
    const bytes = randomBytes(3000);
    const older = openPatch(p2p.t, a.socketToken, transferId, 1, 0, 3000, bytes.subarray(0, 1100));
    expect(await poll(() => head(p2p.t, b.socketToken, transferId, 1), (h) => h.offset === "1100")).toMatchObject({ offset: "1100" });
    expect(await patch(p2p.t, a.socketToken, transferId, 1, 1100, bytes.subarray(1100))).toMatchObject({ status: 204, offset: "3000" });
    const stopped = await older.answer;
    older.req.destroy();
    expect(stopped).toMatchObject({ status: 409, code: ErrorCode.InvalidData });
    expect(Number(stopped.offset)).toBeGreaterThanOrEqual(1100);
    expect((await get(p2p.t, b.socketToken, transferId, 1)).body.equals(bytes)).toBe(true);
  });

  it("a zero-length PATCH on a file held whole does not hash it again", async () => {
    const { a, sender, transferId } = await accepted();
    const bytes = randomBytes(1000);
    const hash = await blake3Of((async function* () {
      yield bytes;
    })());
    expect((await patch(p2p.t, a.socketToken, transferId, 0, 0, bytes)).status).toBe(204);
    expect(await sender.files.ok("p2pFileDone", { transferId, file: 0, hash })).toEqual({ state: "waiting" });
    // The held file changed under the engine: a new hash run would now differ from the sender's.
    await writeFile(path.join(heldDir(p2p.t, transferId), "0"), randomBytes(1000));
    expect(await patch(p2p.t, a.socketToken, transferId, 0, 1000, Buffer.alloc(0))).toMatchObject({ status: 204, offset: "1000" });
    expect(await head(p2p.t, a.socketToken, transferId, 0)).toMatchObject({ offset: "1000" });
  });

  it(`a receiver user has at most ${P2P_RELAY.getsPerUser} relay GETs open; one more answers 429 with Retry-After`, async () => {
    const { a, b, transferId } = await accepted();
    expect((await patch(p2p.t, a.socketToken, transferId, 1, 0, randomBytes(100))).status).toBe(204);
    const waiting = Array.from({ length: P2P_RELAY.getsPerUser }, () => openGet(p2p.t, b.socketToken, transferId, 1, "bytes=100-"));
    try {
      for (const w of waiting) expect((await w.status).status).toBe(206);
      const extra = openGet(p2p.t, b.socketToken, transferId, 1, "bytes=0-99");
      expect(await extra.status).toMatchObject({ status: 429 });
      expect(Number((await extra.status).retryAfter)).toBeGreaterThan(0);
    } finally {
      for (const w of waiting) w.req.destroy();
    }
    // Closed: their places are free again.
    expect((await poll(() => get(p2p.t, b.socketToken, transferId, 1, "bytes=0-99"), (r) => r.status === 206)).status).toBe(206);
  });
});

describe("the engine's room for held bytes (FERRY_P2P_RELAY_MAX_BYTES)", () => {
  // 1500 bytes of room, a sender user's share is half (750), a PATCH reserves 400 ahead, a body silent for 1 s is stopped.
  const small = p2pSuite("p2p_relay_cap", { permission: PERMISSION_FULL }, { FERRY_P2P_RELAY_MAX_BYTES: "1500", FERRY_P2P_RELAY_WINDOW_BYTES: "400", FERRY_P2P_RELAY_IDLE: "1" });

  it("a PATCH that would go over answers 4703 (507) before its body is read, and writes nothing; one user holds at most half the room", async () => {
    const { a, b, sender, transferId } = await small.accepted(P2P_FILES);
    expect((await patch(small.t, a.socketToken, transferId, 0, 0, randomBytes(700))).status).toBe(204);
    // The sender user's share (750) is full; the engine's room is not.
    expect(await patch(small.t, a.socketToken, transferId, 1, 0, randomBytes(51))).toMatchObject({ status: 507, code: ErrorCode.P2pRelayFull, offset: "0" });
    expect(await head(small.t, b.socketToken, transferId, 1)).toMatchObject({ offset: "0" });
    expect(existsSync(path.join(heldDir(small.t, transferId), "1"))).toBe(false);
    expect((await patch(small.t, a.socketToken, transferId, 1, 0, randomBytes(50))).status).toBe(204);
    // Another user's transfer meets the same room.
    const other = await small.accepted(P2P_FILES);
    expect(await patch(small.t, other.a.socketToken, other.transferId, 0, 0, randomBytes(700))).toMatchObject({ status: 204, offset: "700" });
    const third = await small.accepted(P2P_FILES);
    expect(await patch(small.t, third.a.socketToken, third.transferId, 1, 0, randomBytes(51))).toMatchObject({ status: 507, code: ErrorCode.P2pRelayFull });
    // The first transfer ends: its room is free again.
    expect(await sender.files.ok("p2pEnd", { transferId, result: "failed" })).toEqual({ status: "failed" });
    expect(await patch(small.t, third.a.socketToken, third.transferId, 0, 0, randomBytes(750))).toMatchObject({ status: 204, offset: "750" });
    expect(await patch(small.t, third.a.socketToken, third.transferId, 2, 0, randomBytes(1))).toMatchObject({ status: 507, code: ErrorCode.P2pRelayFull });
    for (const o of [other, third]) expect(await o.sender.files.ok("p2pEnd", { transferId: o.transferId, result: "cancelled" })).toEqual({ status: "cancelled" });
  });

  it("a PATCH reserves a window ahead, not its whole Content-Length; a window that cannot grow ends it with 4703 and what was written stays", async () => {
    const one = await small.accepted(P2P_FILES);
    // Headers of 1000 bytes and 100 of them: 400 reserved, not 1000.
    const slow = openPatch(small.t, one.a.socketToken, one.transferId, 1, 0, 1000, randomBytes(100));
    expect(await poll(() => head(small.t, one.b.socketToken, one.transferId, 1), (h) => h.offset === "100")).toMatchObject({ offset: "100" });
    const two = await small.accepted(P2P_FILES);
    expect(await patch(small.t, two.a.socketToken, two.transferId, 0, 0, randomBytes(700))).toMatchObject({ status: 204, offset: "700" });
    // That sender's share (750) is nearly full: 51 more is refused though the engine has room.
    expect(await patch(small.t, two.a.socketToken, two.transferId, 1, 0, randomBytes(51))).toMatchObject({ status: 507, code: ErrorCode.P2pRelayFull });
    // The rest of the slow body: its window cannot grow past its user's share and the engine's room.
    slow.req.end(randomBytes(900));
    const ended = await slow.answer;
    expect(ended).toMatchObject({ status: 507, code: ErrorCode.P2pRelayFull });
    expect(Number(ended.offset)).toBeLessThanOrEqual(750);
    expect(await head(small.t, one.b.socketToken, one.transferId, 1)).toMatchObject({ offset: ended.offset });
    for (const o of [one, two]) expect(await o.sender.files.ok("p2pEnd", { transferId: o.transferId, result: "cancelled" })).toEqual({ status: "cancelled" });
  });

  it("a PATCH whose body sends nothing for FERRY_P2P_RELAY_IDLE is stopped (408, 4184): what came stays held and its reservation is freed", async () => {
    const one = await small.accepted(P2P_FILES);
    const stalled = openPatch(small.t, one.a.socketToken, one.transferId, 1, 0, 1400, randomBytes(100));
    const answer = await stalled.answer;
    stalled.req.destroy();
    expect(answer).toMatchObject({ status: 408, code: ErrorCode.ClientTimeout, offset: "100" });
    expect(await head(small.t, one.b.socketToken, one.transferId, 1)).toMatchObject({ offset: "100" });
    // Only the 100 bytes held count: another user has the rest of the room up to its share.
    const two = await small.accepted(P2P_FILES);
    expect(await patch(small.t, two.a.socketToken, two.transferId, 0, 0, randomBytes(750))).toMatchObject({ status: 204, offset: "750" });
    for (const o of [one, two]) expect(await o.sender.files.ok("p2pEnd", { transferId: o.transferId, result: "cancelled" })).toEqual({ status: "cancelled" });
  });
});
