import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ErrorCode } from "../../contract/errors";
import { PERMISSION_FULL } from "../../contract/permissions";
import { LINGER_BYTES } from "../../server/fileserver/linger";
import { startTestEngine, type TestEngine } from "../support/engine";
import { tusClient } from "../support/tus-client";

/**
 * A body the file server refused before reading it (docs/file-server.md, "Refused bodies"): the
 * refusal is readable by a client that sends its whole (reasonable) body first, as a browser does,
 * and an endless body is not read for ever — the engine closes the connection after LINGER_BYTES. The client is a plain TCP socket: Node's
 * own HTTP client stops sending once it has an answer, which would hide what the engine does.
 */
vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

const MIB = 1024 * 1024;
let t: TestEngine;
let admin: string;
let token: string;

beforeAll(async () => {
  t = await startTestEngine();
  admin = await t.adminToken();
  token = (await t.createUser("linger_alice", { permission: PERMISSION_FULL })).socketToken;
});
afterAll(async () => {
  await t?.call("PATCH", "/api/admin/settings/protocol", { token: admin, body: { uploadPartMB: 0 } });
  await t?.stop();
});

interface Sent {
  status: number | null;
  code: number | null;
  /** Bytes of the body the client wrote before the connection ended or the body was done. */
  written: number;
  /** The connection was closed under the client while it was still sending. */
  cut: boolean;
}

/** A PATCH announcing `declared` bytes whose body is written in 1 MiB pieces until `send` bytes or the connection ends; then the answer is read. */
function patch(url: string, declared: number, send: number): Promise<Sent> {
  const target = new URL(url);
  return new Promise((resolve) => {
    const result: Sent = { status: null, code: null, written: 0, cut: false };
    let answer = "";
    const socket = connect(Number(target.port), target.hostname);
    /** The refusal's envelope, from a Content-Length or a chunked body alike; null until it is whole. */
    const envelope = () => {
      try {
        return JSON.parse(/\{.*\}/s.exec(answer.split("\r\n\r\n").slice(1).join("\r\n\r\n"))?.[0] ?? "") as { code: number };
      } catch {
        return null;
      }
    };
    const finish = () => {
      result.status = Number(/^HTTP\/1\.1 (\d+)/.exec(answer)?.[1] ?? NaN) || null;
      result.code = envelope()?.code ?? null;
      resolve(result);
    };
    socket.setEncoding("utf8");
    let settled = false;
    const check = () => {
      // The whole answer once the whole body was sent: done.
      if (!settled && result.written >= send && envelope()) {
        settled = true;
        socket.end();
        finish();
      }
    };
    socket.on("data", (text: string) => {
      answer += text;
      check();
    });
    socket.on("error", () => {
      result.cut = result.written < send;
    });
    socket.on("close", () => {
      if (result.written < send) result.cut = true;
      if (!settled) finish();
      settled = true;
    });
    socket.write(
      `PATCH ${target.pathname} HTTP/1.1\r\nHost: ${target.host}\r\nTus-Resumable: 1.0.0\r\nAuthorization: Bearer ${token}\r\n` +
        `Upload-Offset: 0\r\nContent-Type: application/offset+octet-stream\r\nContent-Length: ${declared}\r\n\r\n`,
    );
    const piece = Buffer.alloc(MIB, 7);
    const pump = () => {
      while (!socket.destroyed && result.written < send) {
        const n = Math.min(MIB, send - result.written);
        result.written += n;
        if (!socket.write(n === MIB ? piece : piece.subarray(0, n))) return void socket.once("drain", pump);
      }
      check();
    };
    pump();
  });
}

describe("refused upload bodies", () => {
  it("a refused body of a few MiB is read to its end, so the client that sends it all still reads the refusal (4209)", async () => {
    const tus = tusClient(t.fileUrl, token);
    const { id } = await tus.create({ groupId: "0", path: "/linger-small.bin" }, 8 * MIB);
    await t.call("PATCH", "/api/admin/settings/protocol", { token: admin, body: { uploadPartMB: 1 } });
    const sent = await patch(tus.urlOf(id!), 4 * MIB, 4 * MIB);
    expect(sent).toMatchObject({ status: 413, code: ErrorCode.UploadPartTooLarge, written: 4 * MIB, cut: false });
    expect((await tus.head(id!)).headers.get("upload-offset")).toBe("0");
  });

  it("an endless refused body is cut after LINGER_BYTES instead of being read for ever", async () => {
    const tus = tusClient(t.fileUrl, token);
    const { id } = await tus.create({ groupId: "0", path: "/linger-endless.bin" }, 8 * MIB);
    await t.call("PATCH", "/api/admin/settings/protocol", { token: admin, body: { uploadPartMB: 1 } });
    // Announces 4 GiB and would send them all.
    const declared = 4 * 1024 * MIB;
    const sent = await patch(tus.urlOf(id!), declared, declared);
    expect(sent.cut).toBe(true);
    expect(sent.written).toBeGreaterThan(LINGER_BYTES);
    // The engine looks at what it discarded every 50 ms and the sockets' buffers hold more: on
    // loopback the cut comes a few hundred MiB at most past LINGER_BYTES, far from the 4 GiB announced.
    expect(sent.written).toBeLessThan(declared / 4);
    expect((await tus.head(id!)).headers.get("upload-offset")).toBe("0");
  });
});
