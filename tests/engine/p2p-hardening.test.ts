import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { ErrorCode } from "../../contract/errors";
import { PERMISSION_FULL } from "../../contract/permissions";
import type { P2pHistoryEntry, P2pLiveEntry } from "../../contract/p2p";
import type { TransferLogEntry } from "../../contract/tasks";
import { deviceStatus, HASH, newDeviceKey, P2P_FILES, type P2pBrowser, p2pSuite, type Page, setP2p, settle, until } from "../support/p2p";

/*
 * Point to point, what a party (or anyone who knows a device id) cannot do to the engine
 * (docs/p2p.md, "Rules"): bytes counted once and never past the size, both hashes compared when
 * they come at once, offers counted with the status look-ups, open transfers capped with a summary
 * on the socket and the rest paged, allowed paths, sizes and folders that fit their columns, device
 * ids re-issued to another user. Real engine, real sockets, on every database.
 */

const p2p = p2pSuite("p2p_hard", { permission: PERMISSION_FULL });
const { browser, user, admin, accepted } = p2p;
const files = P2P_FILES;
const live = async (id: string) => (await admin<Page<P2pLiveEntry>>(`/api/transmission/ptp/current?text=${id}`)).list[0]!;

describe("bytes and hashes", () => {
  it("a file's bytes count once, never past its size nor backwards; a matched file is whole; the logs carry the real sum", async () => {
    const { a, b, sender, receiver, transferId } = await accepted();
    // The receiver's hash first, the sender's second: done, and its 1000 bytes confirmed.
    expect(await receiver.files.ok("p2pFileDone", { transferId, file: 0, hash: HASH("a") })).toEqual({ state: "waiting" });
    expect(await sender.files.ok("p2pFileDone", { transferId, file: 0, hash: HASH("a") })).toEqual({ state: "match" });
    expect((await live(receiver.deviceId)).doneBytes).toBe(1000);
    // Reports about a file that is done change nothing, however often they come.
    for (let i = 0; i < 20; i++) {
      p2p.t.clock.advance(1000);
      await receiver.files.ok("p2pProgress", { transferId, file: 0, bytes: 1000 });
    }
    expect((await live(receiver.deviceId)).doneBytes).toBe(1000);
    // Two reports at once about the same bytes count them once; more than the size counts the size.
    p2p.t.clock.advance(1000);
    await Promise.all([receiver.files.ok("p2pProgress", { transferId, file: 1, bytes: 2000 }), sender.files.ok("p2pProgress", { transferId, file: 1, bytes: 2000 })]);
    expect((await live(receiver.deviceId)).doneBytes).toBe(3000);
    p2p.t.clock.advance(1000);
    await receiver.files.ok("p2pProgress", { transferId, file: 1, bytes: 999_999 });
    // A late, smaller report does not take bytes back.
    await receiver.files.ok("p2pProgress", { transferId, file: 1, bytes: 10 });
    expect((await live(receiver.deviceId)).doneBytes).toBe(4000);
    expect((await live(receiver.deviceId)).doneBytes).toBeLessThanOrEqual(4010);

    p2p.t.clock.advance(1000);
    await sender.files.ok("p2pEnd", { transferId, result: "done" });
    await p2p.t.engine.services.recorder.flush();
    for (const who of [a, b]) {
      const log = await admin<Page<TransferLogEntry>>(`/api/admin/logs/transfers?user=${who.account}`);
      expect(log.list).toHaveLength(1);
      expect(log.list[0]).toMatchObject({ via: "p2p", bytes: 4000 });
    }
    expect((await admin<Page<P2pHistoryEntry>>(`/api/logs/transmission/ptp?text=${receiver.deviceId}`)).list[0]).toMatchObject({ doneBytes: 4000 });
  });

  it("both sides' hashes at once: exactly one hears match (or 4706), the other waiting and then the p2p.file event", async () => {
    const many = Array.from({ length: 12 }, (_, i) => ({ path: `f${i}.bin`, size: 100, kind: 0 as const }));
    const { sender, receiver, transferId } = await accepted(many);
    for (let file = 0; file < 12; file++) {
      const same = file % 3 !== 2;
      const [s, r] = await Promise.all([
        sender.files.cmd("p2pFileDone", { transferId, file, hash: HASH("a") }),
        receiver.files.cmd("p2pFileDone", { transferId, file, hash: same ? HASH("a") : HASH("b") }),
      ]);
      const state = (x: typeof s) => (x.code === 200 ? (x.data as { state: string }).state : x.code);
      const [first, second] = state(s) === "waiting" ? [sender, state(r)] : [receiver, state(s)];
      expect([state(s), state(r)].filter((x) => x === "waiting"), `file ${file}`).toHaveLength(1);
      expect(second, `file ${file}`).toBe(same ? "match" : ErrorCode.P2pHashMismatch);
      // The side that was told "waiting" hears how the pair ended.
      await until(() => first.heard("p2p.file").some((e) => e.file === file));
      expect(first.heard("p2p.file").filter((e) => e.file === file), `file ${file}`).toEqual([{ transferId, file, state: same ? "match" : "mismatch" }]);
    }
    // 8 files matched (100 bytes each); a mismatched file's bytes are forgotten: it is sent again.
    expect((await live(receiver.deviceId)).doneBytes).toBe(800);
  });
});

describe("offers: counted, capped, summarised", () => {
  it("offers count with the status look-ups (60 a minute per user, failed ones too), then 4705", async () => {
    const a = await user();
    const sender = await browser(a.socketToken);
    for (let i = 0; i < 30; i++) expect((await deviceStatus(p2p.t, a.token, String(900_000_000 + i))).body.data.result).toBe(33);
    for (let i = 0; i < 30; i++) {
      expect((await sender.files.cmd("p2pOffer", { to: String(910_000_000 + i), fromDevice: sender.deviceId, files })).code).toBe(ErrorCode.P2pNoSuchDevice);
    }
    expect((await sender.files.cmd("p2pOffer", { to: "920000000", fromDevice: sender.deviceId, files })).code).toBe(ErrorCode.P2pStatusThrottled);
    expect((await deviceStatus(p2p.t, a.token, "920000001")).body.code).toBe(ErrorCode.P2pStatusThrottled);
    p2p.t.clock.advance(61_000);
    expect((await sender.files.cmd("p2pOffer", { to: "920000002", fromDevice: sender.deviceId, files })).code).toBe(ErrorCode.P2pNoSuchDevice);
  });

  it("at most 20 open transfers per sender and 50 per receiver device; the event and p2pReceive carry 20 entries, p2pFiles pages the rest", async () => {
    const b = await user();
    const receiver = await browser(b.socketToken);
    await receiver.files.ok("p2pReceive", { deviceId: receiver.deviceId, allow: true });
    const list = Array.from({ length: 30 }, (_, i) => ({ path: `dir/f${String(i).padStart(2, "0")}.txt`, size: i, kind: 0 as const }));
    const senders: P2pBrowser[] = [];
    for (let s = 0; s < 3; s++) senders.push(await browser((await user()).socketToken));
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push((await senders[0]!.files.ok("p2pOffer", { to: receiver.deviceId, fromDevice: senders[0]!.deviceId, files: list })).transferId);
    const full = await senders[0]!.files.cmd("p2pOffer", { to: receiver.deviceId, fromDevice: senders[0]!.deviceId, files });
    expect(full.code).toBe(ErrorCode.P2pSenderFull);
    for (let i = 0; i < 20; i++) await senders[1]!.files.ok("p2pOffer", { to: receiver.deviceId, fromDevice: senders[1]!.deviceId, files });
    for (let i = 0; i < 10; i++) await senders[2]!.files.ok("p2pOffer", { to: receiver.deviceId, fromDevice: senders[2]!.deviceId, files });
    expect((await senders[2]!.files.cmd("p2pOffer", { to: receiver.deviceId, fromDevice: senders[2]!.deviceId, files })).code).toBe(ErrorCode.P2pReceiverFull);
    // One ends: room again for that sender.
    await senders[0]!.files.ok("p2pEnd", { transferId: ids.pop()!, result: "cancelled" });
    expect((await senders[0]!.files.cmd("p2pOffer", { to: receiver.deviceId, fromDevice: senders[0]!.deviceId, files })).code).toBe(200);

    // The event carries the first 20 entries and the counts.
    await until(() => receiver.heard("p2p.offer").length >= 51);
    const event = receiver.heard("p2p.offer").find((e) => e.transferId === ids[0])!;
    expect(event.files).toHaveLength(20);
    expect(event.files[19]).toEqual({ path: "dir/f19.txt", size: 19, kind: 0 });
    expect([event.fileCount, event.folderCount, event.totalBytes]).toEqual([30, 0, 435]);
    // The rest by p2pFiles, for the two parties only.
    const page = await receiver.files.ok("p2pFiles", { transferId: ids[0]!, offset: 20, limit: 5 });
    expect(page.total).toBe(30);
    expect(page.files.map((f) => f.path)).toEqual(["dir/f20.txt", "dir/f21.txt", "dir/f22.txt", "dir/f23.txt", "dir/f24.txt"]);
    expect((await senders[0]!.files.ok("p2pFiles", { transferId: ids[0]!, offset: 25 })).files).toHaveLength(5);
    expect((await senders[1]!.files.cmd("p2pFiles", { transferId: ids[0]!, offset: 0 })).code).toBe(ErrorCode.P2pNoSuchTransfer);
    expect((await receiver.files.cmd("p2pFiles", { transferId: ids[0]!, limit: 1001 })).code).toBe(ErrorCode.ParameterError);
  });

  it("offers from one user at once, from several tabs to several devices, stop at 20 open", async () => {
    const a = await user();
    const key = newDeviceKey();
    const tabs: P2pBrowser[] = [];
    for (let i = 0; i < 3; i++) tabs.push(await browser(a.socketToken, key));
    const receivers: P2pBrowser[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await browser((await user()).socketToken);
      await r.files.ok("p2pReceive", { deviceId: r.deviceId, allow: true });
      receivers.push(r);
    }
    const codes = await Promise.all(
      Array.from({ length: 30 }, (_, i) => tabs[i % 3]!.files.cmd("p2pOffer", { to: receivers[Math.floor(i / 3) % 3]!.deviceId, fromDevice: tabs[0]!.deviceId, files }).then((r) => r.code)),
    );
    expect(codes.filter((c) => c === 200)).toHaveLength(20);
    expect(codes.filter((c) => c === ErrorCode.P2pSenderFull)).toHaveLength(10);
  });

  it("a hand-over to an offline device is listed by its p2pReceive with a summary; the receiver's other device cannot answer it", async () => {
    const [a, b] = [await user(), await user()];
    const sender = await browser(a.socketToken);
    const receiver = await browser(b.socketToken);
    const list = Array.from({ length: 25 }, (_, i) => ({ path: `h${i}`, size: 1, kind: 0 as const }));
    const held = await sender.files.ok("p2pOffer", { to: receiver.deviceId, fromDevice: sender.deviceId, files: list, hold: true });
    expect(held.status).toBe("held");
    const reply = await receiver.files.ok("p2pReceive", { deviceId: receiver.deviceId, allow: true });
    expect(reply.held.map((h) => h.transferId)).toEqual([held.transferId]);
    expect(reply.held[0]).toMatchObject({ status: "held", fileCount: 25, totalBytes: 25, from: { account: a.account, deviceId: sender.deviceId } });
    expect(reply.held[0]!.files).toHaveLength(20);
    // The receiver's user on another browser: not a party.
    const otherDevice = await browser(b.socketToken);
    expect((await otherDevice.files.cmd("p2pAnswer", { transferId: held.transferId, accept: true })).code).toBe(ErrorCode.P2pNoSuchTransfer);
    expect(await receiver.files.ok("p2pAnswer", { transferId: held.transferId, accept: true })).toEqual({ status: "accepted" });
  });

  it("two accepts on one receiver device at once: exactly one wins, the other is busy (4702)", async () => {
    const b = await user();
    const receiver = await browser(b.socketToken);
    await receiver.files.ok("p2pReceive", { deviceId: receiver.deviceId, allow: true });
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const s = await browser((await user()).socketToken);
      ids.push((await s.files.ok("p2pOffer", { to: receiver.deviceId, fromDevice: s.deviceId, files })).transferId);
    }
    const second = await browser(b.socketToken, receiver.deviceKey);
    const answers = await Promise.all([receiver.files.cmd("p2pAnswer", { transferId: ids[0]!, accept: true }), second.files.cmd("p2pAnswer", { transferId: ids[1]!, accept: true })]);
    expect(answers.map((x) => x.code).sort()).toEqual([200, ErrorCode.P2pDeviceBusy].sort());
  });
});

describe("settings, sizes and names", () => {
  it("no offer when neither direct nor relay is allowed; a progress report may claim only an allowed path", async () => {
    const { sender, receiver, transferId } = await accepted();
    await setP2p(p2p.t, { direct: false, relay: false });
    try {
      expect((await sender.files.cmd("p2pOffer", { to: receiver.deviceId, fromDevice: sender.deviceId, files })).code).toBe(ErrorCode.P2pNoPath);
      expect((await receiver.files.cmd("p2pProgress", { transferId, file: 0, bytes: 1, path: "direct" })).code).toBe(ErrorCode.P2pPathOff);
      expect((await receiver.files.cmd("p2pProgress", { transferId, file: 0, bytes: 1, path: "relay" })).code).toBe(ErrorCode.P2pPathOff);
    } finally {
      await setP2p(p2p.t, { direct: true, relay: true });
    }
    // Held is the path of a hand-over only.
    expect((await receiver.files.cmd("p2pProgress", { transferId, file: 0, bytes: 1, path: "held" })).code).toBe(ErrorCode.P2pPathOff);
    p2p.t.clock.advance(1000);
    expect((await receiver.files.cmd("p2pProgress", { transferId, file: 0, bytes: 1, path: "relay" })).code).toBe(200);
    expect((await live(receiver.deviceId)).path).toBe("relay");
  });

  it("a Ferry folder is at most 1024 characters; an offer's sizes add up to a safe integer; its names to 1 MiB", async () => {
    const [a, b] = [await user(), await user()];
    const sender = await browser(a.socketToken);
    const receiver = await browser(b.socketToken);
    await receiver.files.ok("p2pReceive", { deviceId: receiver.deviceId, allow: true });
    const max = Number.MAX_SAFE_INTEGER;
    const huge = await sender.files.cmd("p2pOffer", { to: receiver.deviceId, fromDevice: sender.deviceId, files: [{ path: "a", size: max }, { path: "b", size: max }] });
    expect(huge.code).toBe(ErrorCode.P2pTooLarge);
    const segment = "s".repeat(240);
    const long = Array.from({ length: 300 }, (_, i) => ({ path: `${Array.from({ length: 16 }, () => segment).join("/")}/${i}`, size: 1 }));
    expect((await sender.files.cmd("p2pOffer", { to: receiver.deviceId, fromDevice: sender.deviceId, files: long })).code).toBe(ErrorCode.P2pTooManyPathBytes);

    const { transferId } = await sender.files.ok("p2pOffer", { to: receiver.deviceId, fromDevice: sender.deviceId, files });
    const folder = (chars: number) => `/${Array.from({ length: Math.ceil(chars / 100) }, () => "d".repeat(99)).join("/")}`.slice(0, chars);
    expect((await receiver.files.cmd("p2pAnswer", { transferId, accept: true, target: "ferry", folder: folder(1100) })).code).toBe(ErrorCode.ParameterError);
    const fits = folder(1024);
    expect(fits).toHaveLength(1024);
    expect((await receiver.files.cmd("p2pAnswer", { transferId, accept: true, target: "ferry", folder: fits })).code).toBe(200);
    await receiver.files.ok("p2pEnd", { transferId, result: "cancelled" });
    await p2p.t.engine.services.recorder.flush();
    const got = await admin<Page<TransferLogEntry>>(`/api/admin/logs/transfers?user=${b.account}`);
    expect(got.list[0]).toMatchObject({ via: "p2p", path: fits });
  });
});

describe("devices", () => {
  it("a device id issued again to another user inherits none of the old device's transfers, business or lease", async () => {
    const [a, b, c] = [await user(), await user(), await user()];
    const sender = await browser(a.socketToken);
    const old = await browser(b.socketToken);
    await old.files.ok("p2pReceive", { deviceId: old.deviceId, allow: true });
    const { transferId } = await sender.files.ok("p2pOffer", { to: old.deviceId, fromDevice: sender.deviceId, files });
    await old.files.ok("p2pAnswer", { transferId, accept: true });
    const id = old.deviceId;
    await old.files.close();
    await settle();
    // The old device is removed (pruned), and the id is issued to c's new browser.
    const db = p2p.t.engine.services.db.kysely;
    await sql`delete from p2p_devices where device_id = ${id}`.execute(db);
    const fresh = await browser(c.socketToken);
    await sql`update p2p_devices set device_id = ${id} where device_id = ${fresh.deviceId}`.execute(db);
    const again = await browser(c.socketToken, fresh.deviceKey);
    expect(again.deviceId).toBe(id);
    // Not busy with b's transfer, and its receive lists none of it.
    expect((await deviceStatus(p2p.t, a.token, id)).body.data).toMatchObject({ result: 0, account: c.account });
    const reply = await again.files.ok("p2pReceive", { deviceId: id, allow: true });
    expect(reply.active).toEqual([]);
    // b's transfer's signals do not reach c.
    await sender.files.ok("p2pSignal", { transferId, data: { sdp: "for b" } });
    await settle();
    expect(again.heard("p2p.signal")).toEqual([]);
  });

  it("a deleted account's device is no device (33); a tab registering another key does not end the receiving tab's lease", async () => {
    const [a, b] = [await user(), await user()];
    const receiver = await browser(b.socketToken);
    await receiver.files.ok("p2pReceive", { deviceId: receiver.deviceId, allow: true });
    const tab = await browser(b.socketToken, receiver.deviceKey);
    await tab.files.ok("p2pRegister", { deviceKey: newDeviceKey() });
    expect((await deviceStatus(p2p.t, a.token, receiver.deviceId)).body.data).toMatchObject({ result: 0, online: true });
    expect((await p2p.t.call("DELETE", `/api/admin/users/${b.id}`, { token: await p2p.t.adminToken() })).body.code).toBe(200);
    expect((await deviceStatus(p2p.t, a.token, receiver.deviceId)).body.data).toEqual({ result: 33, online: false, account: "" });
  });
});

describe("retention", () => {
  it("an ended transfer's file list is deleted after 30 days; the transfer stays in the history", async () => {
    const { sender, receiver, transferId } = await accepted();
    await sender.files.ok("p2pEnd", { transferId, result: "done" });
    expect((await receiver.files.ok("p2pFiles", { transferId })).files).toHaveLength(3);
    const rows = async () => (await p2p.t.engine.services.db.kysely.selectFrom("p2p_files" as never).select(sql<string | number>`count(*)`.as("n")).where("transfer_id" as never, "=", transferId as never).executeTakeFirst()) as { n: string | number };
    p2p.t.clock.advance(30 * 24 * 3_600_000 - 1000);
    // The sweep runs on the engine's clock (any P2P call runs it too).
    await deviceStatus(p2p.t, (await user()).token, receiver.deviceId);
    expect(Number((await rows()).n)).toBe(3);
    // Looked for at most every 10 minutes.
    p2p.t.clock.advance(11 * 60_000);
    await deviceStatus(p2p.t, (await user()).token, receiver.deviceId);
    expect(Number((await rows()).n)).toBe(0);
    const history = await admin<Page<P2pHistoryEntry>>(`/api/logs/transmission/ptp?text=${receiver.deviceId}`);
    expect(history.list[0]).toMatchObject({ transferId, status: "done", fileCount: 3, totalBytes: 4010 });
  });
});
