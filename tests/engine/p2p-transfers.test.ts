import { describe, expect, it } from "vitest";
import { ErrorCode } from "../../contract/errors";
import { PERMISSION_DEFAULT, PERMISSION_FULL } from "../../contract/permissions";
import type { P2pHistoryEntry, P2pLiveEntry } from "../../contract/p2p";
import type { TransferLogEntry } from "../../contract/tasks";
import { deviceStatus, HASH, P2P_FILES, p2pSuite, type Page, settle, until } from "../support/p2p";

/*
 * Point to point, a transfer's life on the engine (docs/p2p.md): progress, hashes, the end with its
 * transfer-log rows for both sides, expiry of unanswered offers on the engine's clock, the status
 * look-up's rate limit, and the administrator's live and history lists.
 */

const p2p = p2pSuite("p2p_xfer", { permission: PERMISSION_FULL });
const { browser, user, admin, offered, accepted } = p2p;
const files = P2P_FILES;

describe("a transfer from accept to end", () => {
  it("progress shows on the administrator's live list; hashes are compared; the end writes a transfer-log row per side", async () => {
    const { a, b, sender, receiver, transferId } = await accepted();
    await receiver.files.ok("p2pProgress", { transferId, file: 0, bytes: 1000, path: "direct" });
    p2p.t.clock.advance(1000);
    await receiver.files.ok("p2pProgress", { transferId, file: 1, bytes: 1200 });

    const live = await admin<Page<P2pLiveEntry>>(`/api/transmission/ptp/current?text=${sender.deviceId}`);
    expect(live.total).toBe(1);
    expect(live.list[0]).toMatchObject({
      transferId,
      status: "running",
      path: "direct",
      sender: { userId: a.id, account: a.account, deviceId: sender.deviceId, address: "127.0.0.1" },
      receiver: { userId: b.id, account: b.account, deviceId: receiver.deviceId, address: "127.0.0.1" },
      names: ["photos", "notes.txt"],
      totalBytes: 4010,
      doneBytes: 2200,
      fileCount: 3,
      folderCount: 0,
      inFlight: [{ file: 1, path: "photos/two.jpg", size: 3000, received: 1200 }],
    });
    expect(live.list[0]!.speed).toBe(1200);
    // Search by account too; someone else's search finds nothing.
    expect((await admin<Page<P2pLiveEntry>>(`/api/transmission/ptp/current?text=${b.account.toUpperCase()}`)).total).toBe(1);
    expect((await admin<Page<P2pLiveEntry>>("/api/transmission/ptp/current?text=nobody_here")).total).toBe(0);
    // Users do not see the administrator's lists.
    expect((await p2p.t.call("GET", "/api/transmission/ptp/current", { token: a.token })).body.code).not.toBe(200);
    expect((await p2p.t.call("GET", "/api/logs/transmission/ptp", { token: b.token })).body.code).not.toBe(200);

    // The sender's hash, then the receiver's: equal → match.
    expect(await sender.files.ok("p2pFileDone", { transferId, file: 0, hash: HASH("a") })).toEqual({ state: "waiting" });
    expect(await receiver.files.ok("p2pFileDone", { transferId, file: 0, hash: HASH("a") })).toEqual({ state: "match" });
    // The receiver first this time, and another hash: 4706, and the file is to be sent again.
    expect(await receiver.files.ok("p2pFileDone", { transferId, file: 1, hash: HASH("b") })).toEqual({ state: "waiting" });
    expect((await sender.files.cmd("p2pFileDone", { transferId, file: 1, hash: HASH("c") })).code).toBe(ErrorCode.P2pHashMismatch);
    expect(await receiver.files.ok("p2pFileDone", { transferId, file: 1, hash: HASH("c") })).toEqual({ state: "match" });
    expect((await receiver.files.cmd("p2pFileDone", { transferId, file: 9, hash: HASH("c") })).code).toBe(ErrorCode.ParameterError);

    p2p.t.clock.advance(4000);
    expect(await sender.files.ok("p2pEnd", { transferId, result: "done" })).toEqual({ status: "done" });
    await until(() => receiver.heard("p2p.end").length > 0);
    expect(receiver.heard("p2p.end")).toEqual([{ transferId, status: "done", reason: "" }]);
    // Ended: nothing more can be said about it, by either side.
    expect((await receiver.files.cmd("p2pEnd", { transferId, result: "failed" })).code).toBe(ErrorCode.P2pWrongState);
    expect((await receiver.files.cmd("p2pSignal", { transferId, data: {} })).code).toBe(ErrorCode.P2pWrongState);
    expect((await deviceStatus(p2p.t, a.token, receiver.deviceId)).body.data.result).toBe(0);

    await p2p.t.engine.services.recorder.flush();
    const sent = await admin<Page<TransferLogEntry>>(`/api/admin/logs/transfers?user=${a.account}`);
    expect(sent.list).toHaveLength(1);
    expect(sent.list[0]).toMatchObject({ userId: a.id, direction: "upload", via: "p2p", result: "ok", bytes: 4000, files: 2, durationMs: 5000, path: `to ${b.account} (${receiver.deviceId})` });
    const got = await admin<Page<TransferLogEntry>>(`/api/admin/logs/transfers?user=${b.account}`);
    expect(got.list).toHaveLength(1);
    expect(got.list[0]).toMatchObject({ userId: b.id, direction: "download", via: "p2p", result: "ok", bytes: 4000, files: 2, path: `from ${a.account} (${sender.deviceId})` });

    expect((await admin<Page<P2pLiveEntry>>(`/api/transmission/ptp/current?text=${sender.deviceId}`)).total).toBe(0);
    const history = await admin<Page<P2pHistoryEntry>>(`/api/logs/transmission/ptp?text=${receiver.deviceId}`);
    expect(history.total).toBe(1);
    expect(history.list[0]).toMatchObject({ transferId, status: "done", doneBytes: 4000, durationMs: 5000, reason: "" });
  });

  it("the receiver cancelling tells the sender and logs both sides as stopped; a target in Ferry needs Upload", async () => {
    const { a, b, sender, receiver, transferId } = await accepted(P2P_FILES, "ferry");
    const live = await admin<Page<P2pLiveEntry>>(`/api/transmission/ptp/current?text=${receiver.deviceId}`);
    expect(live.list[0]).toMatchObject({ status: "accepted", doneBytes: 0, inFlight: [] });
    expect(await receiver.files.ok("p2pEnd", { transferId, result: "cancelled", reason: "user stopped" })).toEqual({ status: "cancelled" });
    await until(() => sender.heard("p2p.end").length > 0);
    expect(sender.heard("p2p.end")).toEqual([{ transferId, status: "cancelled", reason: "user stopped" }]);
    await p2p.t.engine.services.recorder.flush();
    const got = await admin<Page<TransferLogEntry>>(`/api/admin/logs/transfers?user=${b.account}`);
    expect(got.list[0]).toMatchObject({ result: "stopped", via: "p2p", path: `/P2P/${a.account}` });

    // A receiver without Upload cannot take files into Ferry (but may save them to its disk).
    const c = await user({ permission: PERMISSION_DEFAULT });
    const readOnly = await browser(c.socketToken);
    await readOnly.files.ok("p2pReceive", { deviceId: readOnly.deviceId, allow: true });
    const offer = await sender.files.ok("p2pOffer", { to: readOnly.deviceId, fromDevice: sender.deviceId, files });
    expect((await readOnly.files.cmd("p2pAnswer", { transferId: offer.transferId, accept: true, target: "ferry" })).code).toBe(ErrorCode.PermissionDenied);
    expect((await readOnly.files.cmd("p2pAnswer", { transferId: offer.transferId, accept: true, target: "ferry", folder: "/a/../b" })).code).toBe(ErrorCode.ParameterError);
    expect(await readOnly.files.ok("p2pAnswer", { transferId: offer.transferId, accept: true, target: "local" })).toEqual({ status: "accepted" });
  });

  it("an offer withdrawn before the answer is cancelled, without transfer-log rows", async () => {
    const { a, sender, receiver, transferId } = await offered();
    expect(await sender.files.ok("p2pEnd", { transferId, result: "done" })).toEqual({ status: "cancelled" });
    await until(() => receiver.heard("p2p.end").length > 0);
    expect((await receiver.files.cmd("p2pAnswer", { transferId, accept: true })).code).toBe(ErrorCode.P2pWrongState);
    await p2p.t.engine.services.recorder.flush();
    expect((await admin<Page<TransferLogEntry>>(`/api/admin/logs/transfers?user=${a.account}`)).total).toBe(0);
    expect((await admin<Page<P2pHistoryEntry>>(`/api/logs/transmission/ptp?text=${a.account}&status=cancelled`)).total).toBe(1);
  });
});

describe("expiry and limits", () => {
  it("an offer not answered in 10 minutes expires; both sides hear it; the history shows it", async () => {
    const { a, sender, receiver, transferId } = await offered();
    p2p.t.clock.advance(9 * 60_000);
    const early = await admin<Page<P2pLiveEntry>>(`/api/transmission/ptp/current?text=${receiver.deviceId}`);
    expect(early.list.map((e) => e.status)).toEqual(["offered"]);
    p2p.t.clock.advance(60_001);
    // The sweep runs on the engine's clock; any P2P call runs it too.
    expect((await receiver.files.cmd("p2pAnswer", { transferId, accept: true })).code).toBe(ErrorCode.P2pWrongState);
    await until(() => sender.heard("p2p.end").length > 0 && receiver.heard("p2p.end").length > 0);
    expect(sender.heard("p2p.end")).toEqual([{ transferId, status: "expired", reason: "not answered in time" }]);
    expect(receiver.heard("p2p.end")).toEqual([{ transferId, status: "expired", reason: "not answered in time" }]);
    const history = await admin<Page<P2pHistoryEntry>>(`/api/logs/transmission/ptp?text=${a.account}&from=0&order=asc`);
    expect(history.list.map((e) => [e.transferId, e.status])).toEqual([[transferId, "expired"]]);
    expect((await admin<Page<P2pHistoryEntry>>(`/api/logs/transmission/ptp?text=${a.account}&to=1`)).total).toBe(0);
  });

  it("an accepted transfer with nothing reported for 10 minutes fails: the receiver is free again and both sides are logged", async () => {
    const { a, b, sender, receiver, transferId } = await accepted();
    expect((await deviceStatus(p2p.t, a.token, receiver.deviceId)).body.data.result).toBe(35);
    p2p.t.clock.advance(9 * 60_000);
    await receiver.files.ok("p2pProgress", { transferId, file: 0, bytes: 10 });
    p2p.t.clock.advance(9 * 60_000);
    // Progress 9 minutes ago: still busy.
    expect((await deviceStatus(p2p.t, a.token, receiver.deviceId)).body.data.result).toBe(35);
    p2p.t.clock.advance(60_001);
    expect((await deviceStatus(p2p.t, a.token, receiver.deviceId)).body.data.result).toBe(0);
    await until(() => sender.heard("p2p.end").length > 0 && receiver.heard("p2p.end").length > 0);
    expect(sender.heard("p2p.end")).toEqual([{ transferId, status: "failed", reason: "no activity" }]);
    expect(receiver.heard("p2p.end")).toEqual([{ transferId, status: "failed", reason: "no activity" }]);
    expect((await sender.files.cmd("p2pSignal", { transferId, data: {} })).code).toBe(ErrorCode.P2pWrongState);
    await p2p.t.engine.services.recorder.flush();
    for (const who of [a, b]) expect((await admin<Page<TransferLogEntry>>(`/api/admin/logs/transfers?user=${who.account}`)).list.map((e) => [e.result, e.bytes])).toEqual([["failed", 10]]);
  });

  it("the status look-up allows 60 a minute per user, then 4705 until the minute is over", async () => {
    const [a, b] = [await user(), await user()];
    const receiver = await browser(b.socketToken);
    for (let i = 0; i < 60; i++) expect((await deviceStatus(p2p.t, a.token, i % 2 ? receiver.deviceId : `1${String(i).padStart(8, "0")}`)).body.code).toBe(200);
    const refused = await deviceStatus(p2p.t, a.token, receiver.deviceId);
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe(ErrorCode.P2pStatusThrottled);
    // Another user has a count of their own.
    expect((await deviceStatus(p2p.t, b.token, receiver.deviceId)).body.code).toBe(200);
    p2p.t.clock.advance(60_000);
    expect((await deviceStatus(p2p.t, a.token, receiver.deviceId)).body.data).toEqual({ result: 0, online: false, account: b.account });
  });

  it("a second tab that receives replaces the first, which is told", async () => {
    const b = await user();
    const first = await browser(b.socketToken);
    await first.files.ok("p2pReceive", { deviceId: first.deviceId, allow: true });
    const second = await browser(b.socketToken, first.deviceKey);
    await second.files.ok("p2pReceive", { deviceId: second.deviceId, allow: true });
    await until(() => first.heard("p2p.replaced").length > 0);
    expect(first.heard("p2p.replaced")).toEqual([{ deviceId: first.deviceId }]);
    await settle();
    expect(second.heard("p2p.replaced")).toEqual([]);
    // The replaced tab saying it no longer receives leaves the other one receiving.
    await first.files.ok("p2pReceive", { deviceId: first.deviceId, allow: false });
    expect((await deviceStatus(p2p.t, b.token, first.deviceId)).body.data.online).toBe(true);
    await second.files.ok("p2pReceive", { deviceId: second.deviceId, allow: false });
    expect((await deviceStatus(p2p.t, b.token, first.deviceId)).body.data.online).toBe(false);
  });
});
