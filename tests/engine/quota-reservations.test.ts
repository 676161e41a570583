import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ErrorCode } from "../../contract/errors";
import { PERMISSION_FULL } from "../../contract/permissions";
import { RESERVATION_TTL_MS } from "../../server/files/quota";
import { startTestEngine, type TestEngine } from "../support/engine";
import { socketUsers } from "../support/socket-users";
import { connectVisitor, makeLink, SHARE_ENV, shareTokenOf } from "../support/share-visitor";
import { blake3Hex, tusClient } from "../support/tus-client";

/**
 * Quotas under concurrency (docs/security.md, "Quotas under concurrency"): the bytes an upload
 * declares at its creation are reserved in the database together with the quota check, so parallel
 * creations — a user's own and a share visitor's, which count against the link owner — cannot
 * together pass the quota; a reservation ends at commit (its bytes are then stored), termination,
 * a refused hash, or expiry.
 */
vi.setConfig({ testTimeout: 90_000, hookTimeout: 120_000 });

let t: TestEngine;
const users = socketUsers(() => t);

beforeAll(async () => {
  t = await startTestEngine(SHARE_ENV);
});
afterAll(async () => {
  await users.close();
  await t?.stop();
});

const meta = (p: string, groupId = 0) => ({ groupId: String(groupId), path: p });
const used = async (userId: number) => (await t.call("GET", `/api/admin/users/${userId}`, { token: await t.adminToken() })).body.data.space.used as number;

async function userWith(account: string, quota: number) {
  const user = await users.userWith(account, { quota });
  return { ...user, tus: tusClient(t.fileUrl, user.socketToken) };
}

/** Creates uploads of these sizes all at once (no bytes sent); the sizes accepted and refused. */
async function createAll(token: string, sizes: number[], groupId = 0, prefix = "/p") {
  const tus = tusClient(t.fileUrl, token);
  const replies = await Promise.all(sizes.map((size, i) => tus.create(meta(`${prefix}${i}.bin`, groupId), size)));
  for (const r of replies) expect([201, 400], r.text).toContain(r.status);
  for (const r of replies.filter((r) => r.status === 400)) expect(r.body?.code).toBe(ErrorCode.QuotaExceeded);
  return {
    accepted: sizes.filter((_, i) => replies[i]!.status === 201),
    refused: sizes.filter((_, i) => replies[i]!.status !== 201),
    ids: replies.filter((r) => r.status === 201).map((r) => r.id!),
  };
}
const sum = (sizes: number[]) => sizes.reduce((a, b) => a + b, 0);

/** What a set of parallel creations may do: never pass the quota, and refuse only what did not fit. */
function expectExactFit(result: { accepted: number[]; refused: number[] }, room: number) {
  const taken = sum(result.accepted);
  expect(taken).toBeLessThanOrEqual(room);
  // Reservations only grew during the run: whatever was refused does not fit in what is left now.
  for (const size of result.refused) expect(size).toBeGreaterThan(room - taken);
}

describe("parallel creations against one quota", () => {
  for (const [label, quota, sizes, fits] of [
    ["10 × 150 in 1000", 1000, Array(10).fill(150), 6],
    ["40 × 1000 in 10 000", 10_000, Array(40).fill(1000), 10],
    ["25 × 400 in 1000", 1000, Array(25).fill(400), 2],
  ] as const) {
    it(`accept exactly the ones that fit: ${label}`, async () => {
      const user = await userWith(`qr_eq${quota}_${sizes.length}`, quota);
      const result = await createAll(user.socketToken, [...sizes]);
      expect(result.accepted.length).toBe(fits);
      expectExactFit(result, quota);
      // Nothing was stored; the reservations alone hold the room.
      expect(await used(user.id)).toBe(0);
      expect((await user.tus.create(meta("/late.bin"), quota - sum(result.accepted) + 1)).body?.code).toBe(ErrorCode.QuotaExceeded);
    });
  }

  it("accept sizes that differ only as far as they fit, next to what is stored", async () => {
    const user = await userWith("qr_mixed", 6000);
    const data = randomBytes(1000);
    const first = await user.tus.create(meta("/stored.bin"), data.length, data);
    await user.files.ok("commit", { uploadId: first.id!, hash: await blake3Hex(data) });
    const sizes = [1700, 900, 1300, 2100, 400, 800, 1200, 600, 1500, 300, 1000, 700, 50, 2500];
    const result = await createAll(user.socketToken, sizes);
    expect(result.refused.length).toBeGreaterThan(0);
    expectExactFit(result, 5000);
  });

  it("count every member's uploads against a group's quota", async () => {
    const members = await Promise.all(["qr_g1", "qr_g2", "qr_g3"].map((a) => userWith(a, 0)));
    const group = (await t.call("POST", "/api/admin/groups", { token: await t.adminToken(), body: { name: "qr_team", quota: 2000 } })).body.data as { id: number };
    for (const m of members) await t.call("PUT", `/api/admin/groups/${group.id}/members/${m.id}`, { token: await t.adminToken(), body: { groupPermission: PERMISSION_FULL } });
    const results = await Promise.all(members.map((m, i) => createAll(m.socketToken, Array(6).fill(300), group.id, `/m${i}-`)));
    const accepted = results.flatMap((r) => r.accepted);
    expect(accepted.length).toBe(6);
    expectExactFit({ accepted, refused: results.flatMap((r) => r.refused) }, 2000);
    // The personal spaces are their own.
    expect((await members[0]!.tus.create(meta("/mine.bin"), 5000)).status).toBe(201);
  });
});

describe("a reservation ends", () => {
  it("at commit: the bytes count once, as stored", async () => {
    const user = await userWith("qr_commit", 1000);
    const data = randomBytes(600);
    const created = await user.tus.create(meta("/a.bin"), data.length, data);
    expect(created.status).toBe(201);
    expect((await user.tus.create(meta("/b.bin"), 401)).body).toMatchObject({ code: ErrorCode.QuotaExceeded, data: { used: 600, quota: 1000, needed: 401 } });
    await user.files.ok("commit", { uploadId: created.id!, hash: await blake3Hex(data) });
    expect(await used(user.id)).toBe(600);
    expect((await user.tus.create(meta("/b.bin"), 400)).status).toBe(201);
    expect((await user.tus.create(meta("/c.bin"), 1)).body?.code).toBe(ErrorCode.QuotaExceeded);
    // A repeated commit (a client that lost the reply) changes nothing.
    await user.files.ok("commit", { uploadId: created.id!, hash: await blake3Hex(data) });
    expect((await user.tus.create(meta("/c.bin"), 1)).body?.code).toBe(ErrorCode.QuotaExceeded);
  });

  it("when the upload is terminated (tus DELETE), whether bytes were sent or not", async () => {
    const user = await userWith("qr_delete", 1000);
    const empty = await user.tus.create(meta("/empty.bin"), 1000);
    expect((await user.tus.create(meta("/x.bin"), 1)).body?.code).toBe(ErrorCode.QuotaExceeded);
    expect((await user.tus.remove(empty.id!)).status).toBe(204);

    const half = await user.tus.create(meta("/half.bin"), 1000);
    expect(half.status).toBe(201);
    expect((await user.tus.patch(half.id!, 0, randomBytes(500))).status).toBe(204);
    expect((await user.tus.create(meta("/x.bin"), 1)).body?.code).toBe(ErrorCode.QuotaExceeded);
    expect((await user.tus.remove(half.id!)).status).toBe(204);

    const full = await user.tus.create(meta("/full.bin"), 1000, randomBytes(1000));
    expect(full.status).toBe(201);
    expect((await user.tus.remove(full.id!)).status).toBe(204);
    expect((await user.tus.create(meta("/x.bin"), 1000)).status).toBe(201);
  });

  it("when the commit refuses the bytes for a wrong hash", async () => {
    const user = await userWith("qr_hash", 1000);
    const created = await user.tus.create(meta("/a.bin"), 1000, randomBytes(1000));
    expect((await user.tus.create(meta("/b.bin"), 1)).body?.code).toBe(ErrorCode.QuotaExceeded);
    expect((await user.files.cmd("commit", { uploadId: created.id!, hash: "0".repeat(64) })).code).toBe(ErrorCode.HashCheckError);
    expect((await user.tus.create(meta("/b.bin"), 1000)).status).toBe(201);
  });

  it("when it expires with its upload, and not before", async () => {
    const user = await userWith("qr_expiry", 1000);
    expect((await user.tus.create(meta("/old.bin"), 700)).status).toBe(201);
    t.clock.advance(RESERVATION_TTL_MS - 1000);
    expect((await user.tus.create(meta("/new.bin"), 301)).body?.code).toBe(ErrorCode.QuotaExceeded);
    t.clock.advance(1000);
    expect((await user.tus.create(meta("/new.bin"), 1000)).status).toBe(201);
    expect((await user.tus.create(meta("/more.bin"), 1)).body?.code).toBe(ErrorCode.QuotaExceeded);
  });
});

describe("invitation uploads", () => {
  async function ownerWithInvitation(account: string, quota: number) {
    const owner = await userWith(account, quota);
    await owner.files.ok("mkdir", { groupId: 0, path: "/", name: "inbox" });
    const invite = await makeLink(t, owner.token, { shareUrlType: 0, shareServerPath: "/inbox", needPassword: true, shareUrlPasswd: "up" });
    const token = await shareTokenOf(t, invite);
    return { owner, token, visitorTus: tusClient(t.fileUrl, token) };
  }

  it("count against the owner's quota, next to the owner's own uploads", async () => {
    const { owner, token, visitorTus } = await ownerWithInvitation("qr_inv", 1000);
    const data = randomBytes(700);
    const sent = await visitorTus.create(meta("/from-visitor.bin"), data.length, data);
    expect(sent.status, sent.text).toBe(201);
    expect((await owner.tus.create(meta("/own.bin"), 301)).body).toMatchObject({ code: ErrorCode.QuotaExceeded, data: { used: 700, quota: 1000 } });
    expect((await owner.tus.create(meta("/own.bin"), 300)).status).toBe(201);
    expect((await visitorTus.create(meta("/more.bin"), 1)).body?.code).toBe(ErrorCode.QuotaExceeded);

    // Committed by the visitor, the bytes are the owner's stored bytes, counted once.
    const visitor = await connectVisitor(t.fileUrl, token);
    users.keep(visitor);
    await visitor.ok("commit", { uploadId: sent.id!, hash: await blake3Hex(data) });
    expect(await used(owner.id)).toBe(700);
    expect((await visitorTus.create(meta("/more.bin"), 1)).body?.code).toBe(ErrorCode.QuotaExceeded);
  });

  it("a visitor's termination frees the owner's room", async () => {
    const { owner, visitorTus } = await ownerWithInvitation("qr_inv_del", 1000);
    const pending = await visitorTus.create(meta("/big.bin"), 1000);
    expect((await owner.tus.create(meta("/own.bin"), 1)).body?.code).toBe(ErrorCode.QuotaExceeded);
    expect((await visitorTus.remove(pending.id!)).status).toBe(204);
    expect((await owner.tus.create(meta("/own.bin"), 1000)).status).toBe(201);
  });

  it("in parallel with the owner's: together, only what fits", async () => {
    const { owner, token } = await ownerWithInvitation("qr_inv_par", 2000);
    const [visitors, own] = await Promise.all([createAll(token, Array(8).fill(250), 0, "/v"), createAll(owner.socketToken, Array(8).fill(250), 0, "/o")]);
    const accepted = [...visitors.accepted, ...own.accepted];
    expect(accepted.length).toBe(8);
    expectExactFit({ accepted, refused: [...visitors.refused, ...own.refused] }, 2000);
  });
});
