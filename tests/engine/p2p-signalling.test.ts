import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ErrorCode } from "../../contract/errors";
import { connectFiles } from "../support/file-client";
import { deviceStatus, newDeviceKey, type P2pFile, p2pSuite, setP2p, settle, until } from "../support/p2p";

/*
 * Point to point, the engine's signalling rules (docs/p2p.md, "Socket commands", "Rules"): devices
 * by (user, key), the status look-up, offer → answer → signal only between the two parties of an
 * accepted transfer, and the settings that switch it off. Real engine, real sockets.
 */

const p2p = p2pSuite("p2p_sig");
const { browser, user } = p2p;
const files: P2pFile[] = [
  { path: "a.txt", size: 5, kind: 0 },
  { path: "docs/b.bin", size: 1024, kind: 0 },
  { path: "docs/empty", size: 0, kind: 1 },
];

/** A sender, a receiver whose page is open, and an offer from one to the other (not answered), heard by the receiver. */
async function offered() {
  const o = await p2p.offered(files);
  await until(() => o.receiver.heard("p2p.offer").length > 0);
  return o;
}

async function accepted() {
  const o = await offered();
  expect(await o.receiver.files.ok("p2pAnswer", { transferId: o.transferId, accept: true, target: "local" })).toEqual({ status: "accepted" });
  await until(() => o.sender.heard("p2p.answer").length > 0);
  return o;
}

describe("devices", () => {
  it("the same (user, key) is always the same id; another key or another user is another device", async () => {
    const [a, b] = [await user(), await user()];
    const key = newDeviceKey();
    const first = await browser(a.socketToken, key);
    expect(first.deviceId).toMatch(/^[1-9]\d{8}$/);
    // Another socket (a reload) with the same key: the same id.
    expect((await browser(a.socketToken, key)).deviceId).toBe(first.deviceId);
    const otherKey = await browser(a.socketToken);
    expect(otherKey.deviceId).not.toBe(first.deviceId);
    // The same key in another account is another device.
    const otherUser = await browser(b.socketToken, key);
    expect(otherUser.deviceId).not.toBe(first.deviceId);
    expect(otherUser.deviceId).not.toBe(otherKey.deviceId);
  });

  it("a user keeps 50 devices: a new one past that removes the least recently seen", async () => {
    const [a, b] = [await user(), await user()];
    const first = await browser(a.socketToken);
    const second = await browser(a.socketToken);
    const ids = [first.deviceId, second.deviceId];
    for (let i = 0; i < 48; i++) {
      p2p.t.clock.advance(1);
      ids.push((await first.files.ok("p2pRegister", { deviceKey: newDeviceKey() })).deviceId);
    }
    // 50 devices: all still there. (The first socket is now the last device it registered.)
    expect(new Set(ids).size).toBe(50);
    expect((await deviceStatus(p2p.t, b.token, first.deviceId)).body.data.result).toBe(0);
    // Seen again: the first device is the newest now; the second is the least recently seen.
    p2p.t.clock.advance(1);
    expect((await first.files.ok("p2pRegister", { deviceKey: first.deviceKey })).deviceId).toBe(first.deviceId);
    p2p.t.clock.advance(1);
    await first.files.ok("p2pRegister", { deviceKey: newDeviceKey() });
    expect((await deviceStatus(p2p.t, b.token, second.deviceId)).body.data.result).toBe(33);
    expect((await deviceStatus(p2p.t, b.token, first.deviceId)).body.data.result).toBe(0);
    expect((await deviceStatus(p2p.t, b.token, ids[2]!)).body.data.result).toBe(0);
  });

  it("a socket acts only as the device it registered; a malformed key is refused", async () => {
    const a = await user();
    const bare = await connectFiles(p2p.t.fileUrl, a.socketToken);
    p2p.closeAfter(bare);
    expect((await bare.cmd("p2pReceive", { deviceId: "123456789", allow: true })).code).toBe(ErrorCode.P2pNotRegistered);
    expect((await bare.cmd("p2pRegister", { deviceKey: "short" })).code).toBe(ErrorCode.ParameterError);
    const mine = await browser(a.socketToken);
    const other = await browser(a.socketToken);
    // Receiving as another device (even one's own) from this socket: no such device.
    expect((await mine.files.cmd("p2pReceive", { deviceId: other.deviceId, allow: true })).code).toBe(ErrorCode.P2pNoSuchDevice);
    expect((await mine.files.cmd("p2pOffer", { to: other.deviceId, fromDevice: other.deviceId, files })).code).toBe(ErrorCode.P2pNotRegistered);
    expect((await mine.files.cmd("p2pOffer", { to: mine.deviceId, fromDevice: mine.deviceId, files })).code).toBe(ErrorCode.P2pOwnDevice);
  });
});

describe("status look-up", () => {
  it("33 for no such device, 0 with online while the receiver page is open, 35 while it receives", async () => {
    const [a, b, c] = [await user(), await user(), await user()];
    expect((await deviceStatus(p2p.t, a.token, "999999999")).body.data).toEqual({ result: 33, online: false, account: "" });
    expect((await deviceStatus(p2p.t, a.token, "012345678")).body.data).toEqual({ result: 33, online: false, account: "" });
    const receiver = await browser(b.socketToken);
    expect((await deviceStatus(p2p.t, a.token, receiver.deviceId)).body.data).toEqual({ result: 0, online: false, account: b.account });
    await receiver.files.ok("p2pReceive", { deviceId: receiver.deviceId, allow: true });
    // ?id= with the spaces the id is shown with.
    const spaced = receiver.deviceId.replace(/^(\d{3})(\d{3})(\d{3})$/, "$1 $2 $3");
    expect((await deviceStatus(p2p.t, a.token, spaced, "id")).body.data).toEqual({ result: 0, online: true, account: b.account });
    await receiver.files.ok("p2pReceive", { deviceId: receiver.deviceId, allow: false });
    expect((await deviceStatus(p2p.t, a.token, receiver.deviceId)).body.data.online).toBe(false);
    await receiver.files.ok("p2pReceive", { deviceId: receiver.deviceId, allow: true });
    expect((await deviceStatus(p2p.t, a.token, receiver.deviceId)).body.data.online).toBe(true);

    // Accepted: busy for everyone (35), and another sender's offer is refused (4702).
    const sender = await browser(a.socketToken);
    const { transferId } = await sender.files.ok("p2pOffer", { to: receiver.deviceId, fromDevice: sender.deviceId, files });
    expect((await deviceStatus(p2p.t, c.token, receiver.deviceId)).body.data.result).toBe(0);
    await receiver.files.ok("p2pAnswer", { transferId, accept: true });
    expect((await deviceStatus(p2p.t, c.token, receiver.deviceId)).body.data).toEqual({ result: 35, online: true, account: b.account });
    const third = await browser(c.socketToken);
    expect((await third.files.cmd("p2pOffer", { to: receiver.deviceId, fromDevice: third.deviceId, files })).code).toBe(ErrorCode.P2pDeviceBusy);

    // The receiver page closing ends its lease at once.
    await receiver.files.close();
    await settle();
    expect((await deviceStatus(p2p.t, a.token, receiver.deviceId)).body.data.online).toBe(false);
    // Without a token: refused; without an id: a parameter error.
    expect((await p2p.t.call("GET", `/api/transmission/ptp/status?id=${receiver.deviceId}`)).body.code).not.toBe(200);
    expect((await p2p.t.call("GET", "/api/transmission/ptp/status", { token: a.token })).body.code).toBe(ErrorCode.ParameterError);
  });

  it("a locked account's device is no device (33)", async () => {
    const [a, b] = [await user(), await user()];
    const receiver = await browser(b.socketToken);
    expect((await deviceStatus(p2p.t, a.token, receiver.deviceId)).body.data.result).toBe(0);
    expect((await p2p.t.call("POST", `/api/admin/users/${b.id}/lock`, { token: await p2p.t.adminToken() })).body.code).toBe(200);
    expect((await deviceStatus(p2p.t, a.token, receiver.deviceId)).body.data).toEqual({ result: 33, online: false, account: "" });
  });
});

describe("offer, answer, signal", () => {
  it("the receiver hears the offer; signals wait for the answer; then they reach the other party only", async () => {
    const { a, sender, receiver, transferId } = await offered();
    expect(receiver.heard("p2p.offer")[0]).toMatchObject({ transferId, from: { account: a.account, deviceId: sender.deviceId }, totalBytes: 1029, fileCount: 2, folderCount: 1, files });
    // Before the answer neither side may signal.
    expect((await sender.files.cmd("p2pSignal", { transferId, data: { sdp: "x" } })).code).toBe(ErrorCode.P2pWrongState);
    expect((await receiver.files.cmd("p2pSignal", { transferId, data: { sdp: "x" } })).code).toBe(ErrorCode.P2pWrongState);
    // Only the receiver answers; to the sender the transfer is not theirs to answer.
    expect((await sender.files.cmd("p2pAnswer", { transferId, accept: true })).code).toBe(ErrorCode.P2pNoSuchTransfer);

    expect(await receiver.files.ok("p2pAnswer", { transferId, accept: true, target: "local" })).toEqual({ status: "accepted" });
    await until(() => sender.heard("p2p.answer").length > 0);
    expect(sender.heard("p2p.answer")).toEqual([{ transferId, accept: true, status: "accepted", target: "local" }]);

    const offer = { type: "offer", sdp: "v=0 sender" };
    expect(await sender.files.ok("p2pSignal", { transferId, data: offer })).toBeNull();
    await until(() => receiver.heard("p2p.signal").length > 0);
    expect(receiver.heard("p2p.signal")).toEqual([{ transferId, data: offer }]);
    const candidates = [{ candidate: "c1" }, { candidate: "c2" }, { candidate: "c3" }];
    for (const c of candidates) await receiver.files.ok("p2pSignal", { transferId, data: c });
    await until(() => sender.heard("p2p.signal").length >= 3);
    // In the order sent, and the sender never hears its own.
    expect(sender.heard("p2p.signal")).toEqual(candidates.map((data) => ({ transferId, data })));
    await settle();
    expect(receiver.heard("p2p.signal")).toHaveLength(1);
  });

  it("a third user, and the sender's other device, cannot signal, answer, report or end it: 4700, as for an id that does not exist", async () => {
    const { a, sender, receiver, transferId } = await accepted();
    const c = await user();
    const third = await browser(c.socketToken);
    const senderOther = await browser(a.socketToken);
    // A socket of the sender's user that registered no device at all.
    const bare = await connectFiles(p2p.t.fileUrl, a.socketToken);
    p2p.closeAfter(bare);
    for (const who of [third.files, senderOther.files, bare]) {
      expect((await who.cmd("p2pSignal", { transferId, data: { sdp: "forged" } })).code).toBe(ErrorCode.P2pNoSuchTransfer);
      expect((await who.cmd("p2pAnswer", { transferId, accept: false })).code).toBe(ErrorCode.P2pNoSuchTransfer);
      expect((await who.cmd("p2pProgress", { transferId, file: 0, bytes: 5 })).code).toBe(ErrorCode.P2pNoSuchTransfer);
      expect((await who.cmd("p2pFileDone", { transferId, file: 0, hash: "0".repeat(64) })).code).toBe(ErrorCode.P2pNoSuchTransfer);
      expect((await who.cmd("p2pEnd", { transferId, result: "cancelled" })).code).toBe(ErrorCode.P2pNoSuchTransfer);
    }
    // Guessing ids: the same answer as someone else's transfer.
    expect((await third.files.cmd("p2pSignal", { transferId: randomUUID(), data: {} })).code).toBe(ErrorCode.P2pNoSuchTransfer);
    expect((await third.files.cmd("p2pSignal", { transferId: "not-a-uuid", data: {} })).code).toBe(ErrorCode.ParameterError);
    // The receiver's id lets the third user offer (and be refused while it is busy), nothing more.
    expect((await third.files.cmd("p2pOffer", { to: receiver.deviceId, fromDevice: third.deviceId, files })).code).toBe(ErrorCode.P2pDeviceBusy);

    // The parties still talk, and nobody else hears it.
    await sender.files.ok("p2pSignal", { transferId, data: { sdp: "real" } });
    await until(() => receiver.heard("p2p.signal").length > 0);
    await settle();
    expect(receiver.heard("p2p.signal")).toEqual([{ transferId, data: { sdp: "real" } }]);
    for (const other of [third, senderOther]) expect(other.events).toEqual([]);
    // The transfer is untouched by the refused commands.
    expect((await receiver.files.cmd("p2pSignal", { transferId, data: { ok: 1 } })).code).toBe(200);
  });

  it("a sender's page that reloads takes the transfer's events over when it signals from the same device", async () => {
    const { a, sender, receiver, transferId } = await accepted();
    const reloaded = await browser(a.socketToken, sender.deviceKey);
    expect(reloaded.deviceId).toBe(sender.deviceId);
    await sender.files.close();
    await reloaded.files.ok("p2pSignal", { transferId, data: { sdp: "again" } });
    await receiver.files.ok("p2pSignal", { transferId, data: { answer: 1 } });
    await until(() => reloaded.heard("p2p.signal").length > 0);
    expect(reloaded.heard("p2p.signal")).toEqual([{ transferId, data: { answer: 1 } }]);
  });

  it("signals are at most 16 KiB and 200 a minute per transfer", async () => {
    const { sender, transferId } = await accepted();
    const big = await sender.files.cmd("p2pSignal", { transferId, data: { sdp: "x".repeat(16 * 1024) } });
    expect(big.code).toBe(ErrorCode.P2pSignalTooLarge);
    let refused = 0;
    let accepted200 = 0;
    for (let i = 0; i < 201; i++) {
      const r = await sender.files.cmd("p2pSignal", { transferId, data: { i } });
      if (r.code === 200) accepted200++;
      else if (r.code === ErrorCode.P2pSignalThrottled) refused++;
    }
    expect([accepted200, refused]).toEqual([200, 1]);
    p2p.t.clock.advance(61_000);
    expect((await sender.files.cmd("p2pSignal", { transferId, data: { later: true } })).code).toBe(200);
  });

  it("a decline tells the sender, ends the transfer and frees nothing to signal", async () => {
    const { sender, receiver, transferId } = await offered();
    expect(await receiver.files.ok("p2pAnswer", { transferId, accept: false })).toEqual({ status: "declined" });
    await until(() => sender.heard("p2p.answer").length > 0);
    expect(sender.heard("p2p.answer")).toEqual([{ transferId, accept: false, status: "declined", target: "local" }]);
    expect((await sender.files.cmd("p2pSignal", { transferId, data: {} })).code).toBe(ErrorCode.P2pWrongState);
    expect((await receiver.files.cmd("p2pAnswer", { transferId, accept: true })).code).toBe(ErrorCode.P2pWrongState);
  });

  it("the offer's names, count and size are checked; an offline receiver takes no offer without a hand-over", async () => {
    const [a, b] = [await user(), await user()];
    const sender = await browser(a.socketToken);
    const receiver = await browser(b.socketToken);
    const offer = (list: { path: string; size: number; kind?: 0 | 1 }[], hold = false) => sender.files.cmd("p2pOffer", { to: receiver.deviceId, fromDevice: sender.deviceId, files: list, hold });
    expect((await offer([{ path: "a.txt", size: 1 }])).code).toBe(ErrorCode.P2pDeviceOffline);
    await receiver.files.ok("p2pReceive", { deviceId: receiver.deviceId, allow: true });
    for (const path of ["../x", "/abs", "a/../b", "a//b", "a/b:c", "bad\u202e.txt", "x/."]) expect((await offer([{ path, size: 1 }])).code, path).toBe(ErrorCode.ParameterError);
    expect((await offer([{ path: "same", size: 1 }, { path: "same", size: 2 }])).code).toBe(ErrorCode.ParameterError);
    const many = Array.from({ length: 10_001 }, (_, i) => ({ path: `f${i}`, size: 0 }));
    expect((await offer(many)).code).toBe(ErrorCode.ParameterError);
    await setP2p(p2p.t, { maxTransferBytes: 1000 });
    try {
      expect((await offer([{ path: "big", size: 1001 }])).code).toBe(ErrorCode.P2pTooLarge);
      // Folders count nothing; 1000 bytes fit.
      expect((await offer([{ path: "ok", size: 1000 }, { path: "dir", size: 99999, kind: 1 }])).code).toBe(200);
    } finally {
      await setP2p(p2p.t, { maxTransferBytes: 0 });
    }
    const most = await offer(Array.from({ length: 10_000 }, (_, i) => ({ path: `d/f${i}.txt`, size: 1 })));
    expect(most.code).toBe(200);
  });
});

describe("settings enforced", () => {
  it("P2P off: every command 4704 and the status look-up 33; direct off: signals refused", async () => {
    const { a, sender, receiver, transferId } = await accepted();
    await setP2p(p2p.t, { enabled: false });
    try {
      expect((await deviceStatus(p2p.t, a.token, receiver.deviceId)).body.data).toEqual({ result: 33, online: false, account: "" });
      expect((await sender.files.cmd("p2pRegister", { deviceKey: sender.deviceKey })).code).toBe(ErrorCode.P2pOff);
      expect((await sender.files.cmd("p2pSignal", { transferId, data: {} })).code).toBe(ErrorCode.P2pOff);
      expect((await sender.files.cmd("p2pOffer", { to: receiver.deviceId, fromDevice: sender.deviceId, files })).code).toBe(ErrorCode.P2pOff);
      expect((await receiver.files.cmd("p2pReceive", { deviceId: receiver.deviceId, allow: true })).code).toBe(ErrorCode.P2pOff);
    } finally {
      await setP2p(p2p.t, { enabled: true });
    }
    expect((await sender.files.cmd("p2pSignal", { transferId, data: {} })).code).toBe(200);
    await setP2p(p2p.t, { direct: false });
    try {
      expect((await sender.files.cmd("p2pSignal", { transferId, data: {} })).code).toBe(ErrorCode.P2pDirectOff);
      expect((await receiver.files.cmd("p2pSignal", { transferId, data: {} })).code).toBe(ErrorCode.P2pDirectOff);
    } finally {
      await setP2p(p2p.t, { direct: true });
    }
    // Settings are the administrator's: a user cannot read or change them.
    expect((await p2p.t.call("GET", "/api/admin/p2p/settings", { token: a.token })).body.code).not.toBe(200);
    expect((await p2p.t.call("PUT", "/api/admin/p2p/settings", { token: a.token, body: { enabled: false } })).body.code).not.toBe(200);
    const bad = await p2p.t.call("PUT", "/api/admin/p2p/settings", { token: await p2p.t.adminToken(), body: { holdHours: -1 } });
    expect(bad.body.code).toBe(ErrorCode.ParameterError);
    expect((await p2p.t.call("GET", "/api/admin/p2p/settings", { token: await p2p.t.adminToken() })).body.data).toEqual({ enabled: true, direct: true, relay: true, holdHours: 72, maxTransferBytes: 0, iceServers: [] });
  });
});
