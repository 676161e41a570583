import { randomBytes } from "node:crypto";
import { request } from "node:http";
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PERMISSION_FULL } from "../../contract/permissions";
import { connectFiles, type FileClient } from "../support/file-client";
import { startTestEngine, type TestEngine } from "../support/engine";
import { blake3Hex, tusClient } from "../support/tus-client";

/**
 * A PATCH's body goes from the Node request straight to the store (server/uploads/patch-body.ts),
 * not through tus's web streams. What tus did on that path must still hold: a PATCH whose client
 * stalls gives up the upload's lock when the next PATCH asks for it, keeping exactly the bytes that
 * arrived, and the next PATCH continues from there. (uploads.test.ts covers a PATCH cut by a dropped
 * connection, a stale offset and a body larger than the upload.)
 */

let t: TestEngine;
let alice: Awaited<ReturnType<TestEngine["createUser"]>>;
let files: FileClient;

beforeAll(async () => {
  t = await startTestEngine();
  alice = await t.createUser("alice", { permission: PERMISSION_FULL });
  files = await connectFiles(t.fileUrl, alice.socketToken);
});
afterAll(async () => {
  await files?.close();
  await t?.stop();
});

describe("a PATCH's body", () => {
  it("of a stalled client is cut when the next PATCH asks for the lock, and the upload continues from the bytes stored", async () => {
    const data = randomBytes(4 * 1024 * 1024);
    const half = data.length / 2;
    const tus = tusClient(t.fileUrl, alice.socketToken);
    const { id } = await tus.create({ groupId: "0", path: "/stalled.bin" }, data.length);
    const staged = path.join(t.engine.services.spaces.root, ".ferry-tmp", "tus", id!);

    // Announces the whole file, sends half, then stalls with the connection open.
    const stalled = request(tus.urlOf(id!), {
      method: "PATCH",
      headers: {
        "tus-resumable": "1.0.0",
        authorization: `Bearer ${alice.socketToken}`,
        "upload-offset": "0",
        "content-type": "application/offset+octet-stream",
        "content-length": String(data.length),
      },
    });
    const stalledReply = new Promise<number>((resolve, reject) => {
      stalled.on("response", (res) => {
        res.resume();
        resolve(Number(res.headers["upload-offset"]));
      });
      stalled.on("error", reject);
    });
    stalled.write(data.subarray(0, half));
    for (let i = 0; (await stat(staged)).size < half; i++) {
      if (i > 2000) throw new Error("the first half never reached the store");
      await new Promise((r) => setTimeout(r, 5));
    }

    const rest = await tus.patch(id!, half, data.subarray(half));
    expect(rest.status).toBe(204);
    expect(rest.headers.get("upload-offset")).toBe(String(data.length));
    // The stalled PATCH was answered with what it stored.
    expect(await stalledReply).toBe(half);
    stalled.destroy();

    const hash = await blake3Hex(data);
    expect(await files.ok("commit", { uploadId: id!, hash })).toEqual({ path: "/stalled.bin", size: data.length, hash });
    const space = await t.engine.services.spaces.open(alice.id, 0);
    expect(Buffer.compare(await readFile(path.join(t.engine.services.spaces.root, space.home, "stalled.bin")), data)).toBe(0);
  });
});
