import { createHash, randomInt, randomUUID } from "node:crypto";
import { type Kysely, type Selectable, sql, type Transaction } from "kysely";
import { Permission, hasPermission } from "../../contract/permissions";
import {
  P2P_ACTIVE_STATUSES,
  P2P_DEVICES_PER_USER,
  P2P_FILES_PAGE_MAX,
  P2P_FILES_RETENTION_MS,
  P2P_IDLE_MS,
  P2P_MAX_PATH_BYTES,
  P2P_MAX_FOLDER,
  P2P_OFFER_TTL_MS,
  P2P_OPEN_PER_RECEIVER,
  P2P_OPEN_PER_SENDER,
  P2P_OPEN_STATUSES,
  P2P_RECEIVE_LEASE_MS,
  P2P_SIGNAL_MAX_BYTES,
  P2P_SIGNALS_PER_MINUTE,
  P2P_STATUS,
  P2P_STATUS_PER_MINUTE,
  P2P_SUMMARY_ENTRIES,
  p2pPathProblem,
  type P2pHistoryEntry,
  type P2pHistoryQuery,
  type P2pLiveEntry,
  type P2pResults,
  type P2pSettings,
  type P2pStatus,
  type P2pStatusAnswer,
  type P2pTransferView,
  type p2pCommands,
} from "../../contract/p2p";
import type * as z from "zod";
import type { Clock } from "../clock";
import type { Db } from "../db/connect";
import { isUniqueViolation } from "../db/connect";
import { escapeLike } from "../db/like";
import { FerryError } from "../errors";
import type { SocketChannel, SocketSession } from "../fileserver/socket";
import type { RateLimits } from "../limits/rate-limits";
import type { Recorder } from "../logs/recorder";
import type { Settings } from "../settings/service";
import { type P2pDatabase, p2pDb, type P2pTransfersTable } from "./schema";
import { type DeviceSockets, receiverKey, senderKey } from "./sockets";

/*
 * The engine core of point to point (docs/p2p.md, "Engine"): devices, the status look-up, offers,
 * answers, signalling between the two parties of an accepted transfer, progress, hashes, the end
 * with its transfer-log rows, expiry, and the administrator's live and history lists. The bytes
 * never pass here (direct path); the relay's bytes go through the file server (relay.ts).
 */

type Args<C extends keyof typeof p2pCommands> = z.output<(typeof p2pCommands)[C]>;
type TransferRow = Selectable<P2pTransfersTable>;

export interface P2pDeps {
  db: Db;
  clock: Clock;
  settings: Settings;
  rates: RateLimits;
  recorder: Recorder;
  sockets: DeviceSockets;
  log?: { warn(obj: object, message: string): void };
}

const OPEN = [...P2P_OPEN_STATUSES] as string[];
const ACTIVE = [...P2P_ACTIVE_STATUSES] as string[];
const ENDED = ["done", "failed", "cancelled", "declined", "expired"];
/** Ended transfers' manifests past their retention are looked for at most this often (the sweep runs on every command). */
const PRUNE_EVERY_MS = 10 * 60_000;
/** Progress reports kept per transfer per second. */
const PROGRESS_PER_SECOND = 2;

const keyHash = (userId: number, key: string) => createHash("sha256").update(`${userId}:${key}`).digest("hex");

export function createP2p(deps: P2pDeps) {
  const k: Kysely<P2pDatabase> = p2pDb(deps.db);
  const { clock, sockets } = deps;
  /** The device each socket registered as (p2pRegister): socket id → user and device. */
  const socketDevices = new Map<number, { userId: number; deviceId: string; channel: SocketChannel }>();
  /** Signals per transfer in the current minute. */
  const signalCounts = new Map<string, { start: number; n: number }>();
  /** When ended transfers' manifests were last looked for (engine clock; at most every PRUNE_EVERY_MS). */
  let prunedAt = Number.NEGATIVE_INFINITY;
  /** Progress reports per transfer: the second's count and the last two samples for the speed. */
  const progress = new Map<string, { second: number; n: number; samples: { at: number; done: number }[] }>();

  const settings = (): Promise<P2pSettings> => deps.settings.get("p2p");

  /** Status look-ups and offers of one user, together: P2P_STATUS_PER_MINUTE, then 4705. */
  async function throttle(userId: number) {
    const taken = await deps.rates.take(`rate:p2p-status:${userId}`, P2P_STATUS_PER_MINUTE, 60_000);
    if (!taken.allowed) {
      const seconds = Math.max(1, Math.ceil((taken.retryAt - clock.now()) / 1000));
      throw new FerryError("P2pStatusThrottled", { retryAfter: seconds }, { seconds });
    }
  }

  async function requireEnabled(): Promise<P2pSettings> {
    const s = await settings();
    if (!s.enabled) throw new FerryError("P2pOff");
    return s;
  }

  /** The socket's device; the socket's user must still be the one who registered it. */
  function deviceOf(session: SocketSession): { userId: number; deviceId: string } {
    const d = session.channel ? socketDevices.get(session.channel.id) : undefined;
    if (!d || d.userId !== session.user.id) throw new FerryError("P2pNotRegistered");
    return d;
  }

  function attach(channel: SocketChannel, userId: number, deviceId: string) {
    const known = socketDevices.has(channel.id);
    socketDevices.set(channel.id, { userId, deviceId, channel });
    if (known) return;
    channel.closed.addEventListener(
      "abort",
      () => {
        socketDevices.delete(channel.id);
        for (const key of sockets.drop(channel)) {
          if (key.startsWith("receiver:")) {
            const [, user, device] = key.split(":");
            void setReceiving(Number(user), device!, null);
          }
        }
      },
      { once: true },
    );
  }

  async function setReceiving(userId: number, deviceId: string, until: number | null) {
    try {
      await k.updateTable("p2p_devices").set({ receiving_until: until, last_seen_at: clock.now() }).where("user_id", "=", userId).where("device_id", "=", deviceId).execute();
    } catch (error) {
      deps.log?.warn({ err: error }, "p2p: updating a device's receiving lease failed");
    }
  }

  async function transferOf(id: string): Promise<TransferRow | undefined> {
    return k.selectFrom("p2p_transfers").selectAll().where("id", "=", id).executeTakeFirst();
  }

  /** The transfer and which party the socket's device is; 4700 for anyone else (the same as no transfer). */
  async function partyOf(session: SocketSession, id: string): Promise<{ row: TransferRow; side: "sender" | "receiver" }> {
    const d = session.channel ? socketDevices.get(session.channel.id) : undefined;
    const row = await transferOf(id);
    if (!row || !d || d.userId !== session.user.id) throw new FerryError("P2pNoSuchTransfer");
    if (row.sender_user_id === d.userId && row.sender_device_id === d.deviceId) return { row, side: "sender" };
    if (row.receiver_user_id === d.userId && row.receiver_device_id === d.deviceId) return { row, side: "receiver" };
    throw new FerryError("P2pNoSuchTransfer");
  }

  const receiverOf = (row: TransferRow) => receiverKey(row.receiver_user_id, row.receiver_device_id);
  const otherKey = (row: TransferRow, side: "sender" | "receiver") => (side === "sender" ? receiverOf(row) : senderKey(row.id));
  const locking = <Q extends { forUpdate(): Q }>(q: Q): Q => (deps.db.dialect === "sqlite" ? q : q.forUpdate());
  /** The bytes the receiver confirmed of a transfer's files, as SQL (its done_bytes). */
  const confirmed = (id: string) => sql<number>`(select coalesce(sum(received), 0) from p2p_files where transfer_id = ${id})`;

  /** A path reported by progress must be allowed by the settings now: direct, relay, held (a hand-over only). */
  function checkPath(s: P2pSettings, row: TransferRow, path: string) {
    const allowed = path === "direct" ? s.direct : path === "relay" ? s.relay : path === "held" ? s.relay && row.hold_until !== null : false;
    if (!allowed) throw new FerryError("P2pPathOff", { path }, { path });
  }

  /** Moves `id` from one of `from` to `to` in one statement; false when another change came first. */
  async function move(id: string, from: string[], set: Partial<TransferRow>): Promise<boolean> {
    const r = await k
      .updateTable("p2p_transfers")
      .set({ ...(set as object), updated_at: clock.now() })
      .where("id", "=", id)
      .where("status", "in", from)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /** Told of every transfer that ends here (the relay deletes its held bytes: relay.ts). */
  const endedListeners = new Set<(id: string) => void>();
  /** The relay's BLAKE3 of a file it holds whole (relay.ts), compared with the sender's as it is reported. */
  let relayHashOf: ((id: string, file: number) => Promise<string | null>) | null = null;

  function forget(id: string) {
    signalCounts.delete(id);
    progress.delete(id);
    sockets.unbind(senderKey(id));
    for (const listener of endedListeners) listener(id);
  }

  /**
   * A file's confirmed bytes, and the transfer's, as a progress report of `path` sets them (p2pProgress,
   * and the relay's writes): only grow, up to the file's size, never for a `done` file; the first makes
   * the transfer `running`. The speed samples of the live list follow. At most 2 kept a second per transfer.
   */
  async function recordProgress(row: TransferRow, fileIdx: number, reported: number, path: string | undefined, limited = true): Promise<void> {
    const now = clock.now();
    let p = progress.get(row.id);
    if (!p) progress.set(row.id, (p = { second: Math.floor(now / 1000), n: 0, samples: [] }));
    if (p.second !== Math.floor(now / 1000)) {
      p.second = Math.floor(now / 1000);
      p.n = 0;
    }
    // At most 2 reports a second are kept; the rest are answered and dropped.
    // The relay's own reports (limited: false) are spaced by the relay and never dropped.
    if (limited && p.n >= PROGRESS_PER_SECOND) return;
    if (limited) p.n++;
    const file = await k.selectFrom("p2p_files").select(["size"]).where("transfer_id", "=", row.id).where("idx", "=", fileIdx).executeTakeFirst();
    if (!file) throw new FerryError("ParameterError", { file: fileIdx, reason: "no such file in the transfer" });
    const size = Number(file.size);
    const bytes = Math.min(reported, size);
    const done = await k.transaction().execute(async (tx) => {
      // The transfer's row first: reports about one transfer count one after the other.
      const locked = await locking(tx.selectFrom("p2p_transfers").select("status").where("id", "=", row.id)).executeTakeFirst();
      if (!locked || !ACTIVE.includes(locked.status)) throw new FerryError("P2pWrongState", { status: locked?.status ?? "" }, { status: locked?.status ?? "" });
      // A file's confirmed bytes only grow, up to its size; a file whose hashes agree is whole already.
      await tx
        .updateTable("p2p_files")
        .set({ received: bytes, state: bytes >= size ? "sent" : "sending" })
        .where("transfer_id", "=", row.id)
        .where("idx", "=", fileIdx)
        .where("state", "<>", "done")
        .where("received", "<", bytes)
        .execute();
      await tx
        .updateTable("p2p_transfers")
        .set({ done_bytes: confirmed(row.id), status: "running", updated_at: now, ...(path ? { path } : {}) })
        .where("id", "=", row.id)
        .execute();
      const after = await tx.selectFrom("p2p_transfers").select("done_bytes").where("id", "=", row.id).executeTakeFirst();
      return Number(after?.done_bytes ?? 0);
    });
    p.samples.push({ at: now, done });
    if (p.samples.length > 5) p.samples.shift();
  }

  /**
   * Offers not answered in 10 min and hand-overs past their time expire; accepted or running
   * transfers with nothing reported for 10 min (both pages gone) fail, so the receiver is not busy
   * for ever. Both parties hear it.
   */
  async function expireDue(): Promise<number> {
    const now = clock.now();
    const due = await k
      .selectFrom("p2p_transfers")
      .selectAll()
      .where((eb) =>
        eb.or([
          eb.and([eb("status", "=", "offered"), eb("created_at", "<=", now - P2P_OFFER_TTL_MS)]),
          eb.and([eb("status", "=", "held"), eb("hold_until", "<=", now)]),
          eb.and([eb("status", "in", ACTIVE), eb("updated_at", "<=", now - P2P_IDLE_MS)]),
        ]),
      )
      .limit(500)
      .execute();
    let n = 0;
    for (const t of due) {
      const idle = ACTIVE.includes(t.status);
      const status: P2pStatus = idle ? "failed" : "expired";
      const reason = idle ? "no activity" : "not answered in time";
      if (!(await move(t.id, [t.status], { status, finished_at: now, reason }))) continue;
      n++;
      if (idle) await logEnd(t, status, now);
      const event = { event: "p2p.end", data: { transferId: t.id, status, reason } } as const;
      sockets.push(senderKey(t.id), event);
      sockets.push(receiverOf(t), event);
      forget(t.id);
    }
    if (now - prunedAt >= PRUNE_EVERY_MS) {
      prunedAt = now;
      await pruneManifests(now);
    }
    return n;
  }

  /**
   * The manifests (p2p_files) of transfers ended more than P2P_FILES_RETENTION_MS ago are deleted,
   * 500 transfers a sweep, a sweep at most every 10 min; the transfer rows stay for the history.
   */
  async function pruneManifests(now: number) {
    const old = await k
      .selectFrom("p2p_transfers")
      .select("id")
      .where("status", "in", ENDED)
      .where("finished_at", "<=", now - P2P_FILES_RETENTION_MS)
      .where((eb) => eb.exists(eb.selectFrom("p2p_files").select("idx").whereRef("p2p_files.transfer_id", "=", "p2p_transfers.id")))
      .limit(500)
      .execute();
    if (old.length > 0) await k.deleteFrom("p2p_files").where("transfer_id", "in", old.map((t) => t.id)).execute();
  }

  /**
   * A user keeps at most P2P_DEVICES_PER_USER devices (each cleared browser makes one): past it the
   * least recently seen ones go, never `keep`; their ids answer 33 from then on.
   */
  async function pruneDevices(userId: number, keep: string) {
    const old = await k
      .selectFrom("p2p_devices")
      .select("id")
      .where("user_id", "=", userId)
      .where("device_id", "<>", keep)
      .orderBy("last_seen_at", "desc")
      .orderBy("id", "desc")
      .offset(P2P_DEVICES_PER_USER - 1)
      .limit(1000)
      .execute();
    if (old.length > 0) await k.deleteFrom("p2p_devices").where("id", "in", old.map((d) => d.id)).execute();
  }

  /** The device has a transfer accepted or running (from any sender, the asking one too). */
  async function busy(receiverUserId: number, receiverDeviceId: string, except?: string): Promise<boolean> {
    let q = k.selectFrom("p2p_transfers").select("id").where("receiver_user_id", "=", receiverUserId).where("receiver_device_id", "=", receiverDeviceId).where("status", "in", ACTIVE);
    if (except) q = q.where("id", "<>", except);
    return (await q.limit(1).executeTakeFirst()) !== undefined;
  }

  /** The device to send to: exists, its account neither deleted nor locked. */
  async function targetDevice(deviceId: string) {
    return k
      .selectFrom("p2p_devices")
      .innerJoin("users", "users.id", "p2p_devices.user_id")
      .select(["p2p_devices.device_id", "p2p_devices.user_id", "p2p_devices.receiving_until", "users.account", "users.locked"])
      .where("p2p_devices.device_id", "=", deviceId)
      .executeTakeFirst()
      .then((d) => (d && !d.locked ? d : undefined));
  }

  async function views(rows: TransferRow[]): Promise<P2pTransferView[]> {
    const out: P2pTransferView[] = [];
    for (const row of rows) {
      const files = await k.selectFrom("p2p_files").select(["path", "size", "kind", "received"]).where("transfer_id", "=", row.id).orderBy("idx").limit(P2P_SUMMARY_ENTRIES).execute();
      out.push({
        transferId: row.id,
        status: row.status as P2pStatus,
        path: row.path,
        from: { account: row.sender_account, deviceId: row.sender_device_id },
        to: { account: row.receiver_account, deviceId: row.receiver_device_id },
        files: files.map((f) => ({ path: f.path, size: Number(f.size), kind: Number(f.kind), received: Number(f.received) })),
        totalBytes: Number(row.total_bytes),
        doneBytes: Number(row.done_bytes),
        fileCount: Number(row.file_count),
        folderCount: Number(row.folder_count),
        target: row.target,
        folder: row.target_folder,
        createdAt: Number(row.created_at),
        holdUntil: row.hold_until === null ? null : Number(row.hold_until),
      });
    }
    return out;
  }

  /** One transfer-log row per side of a transfer that was accepted (docs/p2p.md, via "p2p"). */
  async function logEnd(row: TransferRow, status: P2pStatus, now: number) {
    if (row.started_at === null) return;
    const counted = await k
      .selectFrom("p2p_files")
      .select(sql<string | number>`count(*)`.as("n"))
      .where("transfer_id", "=", row.id)
      .where("kind", "=", 0)
      .where((eb) => eb.or([eb("state", "=", "done"), eb("received", ">=", eb.ref("size"))]))
      .executeTakeFirst();
    const files = Number(counted?.n ?? 0);
    const result = status === "done" ? "ok" : status === "failed" ? "failed" : "stopped";
    const durationMs = now - Number(row.started_at);
    // The bytes confirmed, never more than the transfer holds.
    const sum = await k.selectFrom("p2p_files").select(sql<string | number | null>`sum(received)`.as("n")).where("transfer_id", "=", row.id).executeTakeFirst();
    const bytes = Math.min(Number(sum?.n ?? 0), Number(row.total_bytes));
    deps.recorder.recordTransfer({ userId: row.sender_user_id, account: row.sender_account, direction: "upload", bytes, files, durationMs, result, via: "p2p", path: `to ${row.receiver_account} (${row.receiver_device_id})`, address: row.sender_address, at: now });
    const place = row.target === "ferry" ? row.target_folder : `from ${row.sender_account} (${row.sender_device_id})`;
    deps.recorder.recordTransfer({ userId: row.receiver_user_id, account: row.receiver_account, direction: "download", bytes, files, durationMs, result, via: "p2p", path: place, address: row.receiver_address, at: now });
  }

  function speedOf(id: string): number {
    const samples = progress.get(id)?.samples ?? [];
    if (samples.length < 2) return 0;
    const [a, b] = [samples[0]!, samples[samples.length - 1]!];
    return b.at > a.at ? Math.max(0, Math.round(((b.done - a.done) * 1000) / (b.at - a.at))) : 0;
  }

  function filtered(text: string | undefined, statuses: string[]) {
    let q = k.selectFrom("p2p_transfers").where("status", "in", statuses);
    const search = text?.trim().toLowerCase().replace(/\s+/g, " ");
    if (search) {
      const pattern = `%${escapeLike(search)}%`;
      const digits = search.replace(/\s+/g, "");
      q = q.where(
        sql<boolean>`(lower(sender_account) like ${pattern} escape '!' or lower(receiver_account) like ${pattern} escape '!' or sender_device_id = ${digits} or receiver_device_id = ${digits})`,
      );
    }
    return q;
  }

  async function namesOf(id: string): Promise<string[]> {
    const rows = await k.selectFrom("p2p_files").select("path").where("transfer_id", "=", id).orderBy("idx").limit(200).execute();
    return [...new Set(rows.map((r) => r.path.split("/")[0]!))].slice(0, 20);
  }

  const party = (row: TransferRow, side: "sender" | "receiver") =>
    side === "sender"
      ? { userId: row.sender_user_id, account: row.sender_account, deviceId: row.sender_device_id, address: row.sender_address }
      : { userId: row.receiver_user_id, account: row.receiver_account, deviceId: row.receiver_device_id, address: row.receiver_address };

  /** What the live list and the history say alike of a transfer. */
  async function entryOf(row: TransferRow) {
    return {
      transferId: row.id,
      status: row.status as P2pStatus,
      path: row.path,
      sender: party(row, "sender"),
      receiver: party(row, "receiver"),
      names: await namesOf(row.id),
      totalBytes: Number(row.total_bytes),
      doneBytes: Number(row.done_bytes),
      fileCount: Number(row.file_count),
      folderCount: Number(row.folder_count),
    };
  }

  async function liveEntry(row: TransferRow): Promise<P2pLiveEntry> {
    const inFlight = await k
      .selectFrom("p2p_files")
      .select(["idx", "path", "size", "received"])
      .where("transfer_id", "=", row.id)
      .where("received", ">", 0)
      .where("received", "<", (eb) => eb.ref("size"))
      .orderBy("idx")
      .limit(50)
      .execute();
    return {
      ...(await entryOf(row)),
      speed: speedOf(row.id),
      createdAt: Number(row.created_at),
      updatedAt: Number(row.updated_at),
      inFlight: inFlight.map((f) => ({ file: Number(f.idx), path: f.path, size: Number(f.size), received: Number(f.received) })),
    };
  }

  /** The relay's bytes of a file differ from the sender's hash: they are forgotten, and the file is sent again from its start. */
  async function relayMismatch(id: string, fileIdx: number) {
    await k.transaction().execute(async (tx) => {
      await locking(tx.selectFrom("p2p_transfers").select("status").where("id", "=", id)).executeTakeFirst();
      await forgetRelayBytes(tx, id, fileIdx);
    });
    await relayDropped(id, fileIdx);
  }
  /** Inside a transaction holding the transfer's row: the file's received bytes are forgotten (state `mismatch`). */
  async function forgetRelayBytes(tx: Transaction<P2pDatabase>, id: string, fileIdx: number) {
    await tx.updateTable("p2p_files").set({ received: 0, receiver_hash: "", state: "mismatch" }).where("transfer_id", "=", id).where("idx", "=", fileIdx).where("state", "<>", "done").execute();
    await tx.updateTable("p2p_transfers").set({ done_bytes: confirmed(id), updated_at: clock.now() }).where("id", "=", id).execute();
  }
  /** The held bytes are gone before the sender hears 4706 (its resend starts from 0). */
  const relayDropped = (id: string, fileIdx: number) => Promise.all([...relayDropListeners].map((listener) => listener(id, fileIdx)));

  /**
   * The relay hashed a file it holds whole (relay.ts; the relay's hash is set before this is called, so
   * a `p2pFileDone` of the sender compares it under the same lock): compared with the sender's hash as
   * stored now, with the transfer's row locked. Whichever of the two comes second compares.
   */
  async function relayCompare(id: string, fileIdx: number, hash: string): Promise<"waiting" | "match" | "mismatch"> {
    const verdict = await k.transaction().execute(async (tx) => {
      const locked = await locking(tx.selectFrom("p2p_transfers").select("status").where("id", "=", id)).executeTakeFirst();
      if (!locked || !ACTIVE.includes(locked.status)) return "waiting" as const;
      const file = await locking(tx.selectFrom("p2p_files").select(["hash", "state"]).where("transfer_id", "=", id).where("idx", "=", fileIdx)).executeTakeFirst();
      if (!file || file.hash === "" || file.state === "done") return "waiting" as const;
      if (file.hash === hash) return "match" as const;
      await forgetRelayBytes(tx, id, fileIdx);
      return "mismatch" as const;
    });
    if (verdict === "mismatch") await relayDropped(id, fileIdx);
    return verdict;
  }
  const relayDropListeners = new Set<(id: string, file: number) => Promise<void>>();

  return {
    expireDue,
    settings,

    /**
     * The relay's side (relay.ts): told of every transfer that ends here and of held bytes a hash
     * check threw away; asked for the hash of a file it holds whole.
     */
    relay: {
      onEnded: (listener: (id: string) => void) => endedListeners.add(listener),
      onMismatch: (listener: (id: string, file: number) => Promise<void>) => relayDropListeners.add(listener),
      hashOf: (lookup: (id: string, file: number) => Promise<string | null>) => (relayHashOf = lookup),
      /** Bytes the relay holds of a file, as a progress report of path `relay`. */
      progress: (row: TransferRow, file: number, bytes: number) => recordProgress(row, file, bytes, "relay", false),
      mismatch: relayMismatch,
      compare: relayCompare,
      transfer: transferOf,
    },

    /** Renews the receiving lease of every receiver page open on this engine. */
    async renewLeases(): Promise<void> {
      const byUser = new Map<number, Set<string>>();
      for (const d of socketDevices.values()) {
        if (!sockets.has(receiverKey(d.userId, d.deviceId))) continue;
        if (!byUser.has(d.userId)) byUser.set(d.userId, new Set());
        byUser.get(d.userId)!.add(d.deviceId);
      }
      for (const [userId, set] of byUser) {
        const unique = [...set];
        for (let i = 0; i < unique.length; i += 500) {
          await k
            .updateTable("p2p_devices")
            .set({ receiving_until: clock.now() + P2P_RECEIVE_LEASE_MS, last_seen_at: clock.now() })
            .where("user_id", "=", userId)
            .where("device_id", "in", unique.slice(i, i + 500))
            .execute();
        }
      }
    },

    async register(session: SocketSession, args: Args<"p2pRegister">): Promise<P2pResults["p2pRegister"]> {
      await requireEnabled();
      if (!session.channel) throw new FerryError("FeatureNotSupported", { cmd: "p2pRegister" });
      const userId = session.user.id;
      const hash = keyHash(userId, args.deviceKey);
      const now = clock.now();
      let deviceId: string | undefined;
      for (let attempt = 0; attempt < 8 && !deviceId; attempt++) {
        const found = await k.selectFrom("p2p_devices").select(["device_id", "user_id"]).where("key_hash", "=", hash).executeTakeFirst();
        if (found) {
          deviceId = found.device_id;
          await k.updateTable("p2p_devices").set({ last_seen_at: now }).where("key_hash", "=", hash).execute();
          break;
        }
        const candidate = String(randomInt(100_000_000, 1_000_000_000));
        try {
          await k.insertInto("p2p_devices").values({ user_id: userId, key_hash: hash, device_id: candidate, created_at: now, last_seen_at: now, receiving_until: null }).execute();
          deviceId = candidate;
          await pruneDevices(userId, candidate);
        } catch (error) {
          // Another id of that number, or the same key registered at the same moment: look again.
          if (!isUniqueViolation(error)) throw error;
        }
      }
      if (!deviceId) throw new FerryError("UnknownException", { reason: "no free device id" });
      // A socket that was another device (another account signed in) is not its receiver any more.
      const before = socketDevices.get(session.channel.id);
      if (before && (before.deviceId !== deviceId || before.userId !== userId) && sockets.unbind(receiverKey(before.userId, before.deviceId), session.channel)) await setReceiving(before.userId, before.deviceId, null);
      attach(session.channel, userId, deviceId);
      return { deviceId };
    },

    async receive(session: SocketSession, args: Args<"p2pReceive">): Promise<P2pResults["p2pReceive"]> {
      await requireEnabled();
      const d = deviceOf(session);
      if (d.deviceId !== args.deviceId) throw new FerryError("P2pNoSuchDevice");
      const channel = session.channel!;
      if (!args.allow) {
        // Another tab that receives keeps receiving.
        if (sockets.unbind(receiverKey(d.userId, d.deviceId), channel)) await setReceiving(d.userId, d.deviceId, null);
        return { held: [], active: [] };
      }
      const replaced = sockets.bind(receiverKey(d.userId, d.deviceId), channel);
      replaced?.push({ event: "p2p.replaced", data: { deviceId: d.deviceId } });
      await setReceiving(d.userId, d.deviceId, clock.now() + P2P_RECEIVE_LEASE_MS);
      await expireDue();
      // This user's device only: an id issued again after its device was removed does not inherit its transfers.
      const rows = await k
        .selectFrom("p2p_transfers")
        .selectAll()
        .where("receiver_user_id", "=", d.userId)
        .where("receiver_device_id", "=", d.deviceId)
        .where("status", "in", ["held", "offered", ...ACTIVE])
        .orderBy("created_at")
        .limit(P2P_OPEN_PER_RECEIVER)
        .execute();
      // Offers that came while the page was closed are shown again.
      for (const row of rows.filter((r) => r.status === "offered")) {
        const [view] = await views([row]);
        channel.push({ event: "p2p.offer", data: { transferId: row.id, from: view!.from, files: view!.files.map(({ path, size, kind }) => ({ path, size, kind })), totalBytes: view!.totalBytes, fileCount: view!.fileCount, folderCount: view!.folderCount, createdAt: view!.createdAt } });
      }
      return { held: await views(rows.filter((r) => r.status === "held")), active: await views(rows.filter((r) => ACTIVE.includes(r.status))) };
    },

    async status(userId: number, id: string): Promise<P2pStatusAnswer> {
      await throttle(userId);
      const none = { result: P2P_STATUS.NoDevice, online: false, account: "" } as const;
      if (!(await settings()).enabled || !/^[1-9]\d{8}$/.test(id)) return none;
      await expireDue();
      const device = await targetDevice(id);
      if (!device) return none;
      const online = device.receiving_until !== null && Number(device.receiving_until) > clock.now();
      if (await busy(device.user_id, id)) return { result: P2P_STATUS.Busy, online, account: device.account };
      return { result: P2P_STATUS.Ready, online, account: device.account };
    },

    async offer(session: SocketSession, args: Args<"p2pOffer">): Promise<P2pResults["p2pOffer"]> {
      const s = await requireEnabled();
      const d = deviceOf(session);
      if (d.deviceId !== args.fromDevice) throw new FerryError("P2pNotRegistered");
      // Every offer counts with the status look-ups (failed ones too): its answers (4701, 4707) tell as much as a look-up.
      await throttle(d.userId);
      if (args.to === args.fromDevice) throw new FerryError("P2pOwnDevice");
      if (!s.direct && !s.relay) throw new FerryError("P2pNoPath");
      const seen = new Set<string>();
      let total = 0;
      let folders = 0;
      let pathBytes = 0;
      for (const f of args.files) {
        const problem = p2pPathProblem(f.path);
        if (problem) throw new FerryError("ParameterError", { path: f.path, reason: problem });
        if (seen.has(f.path)) throw new FerryError("ParameterError", { path: f.path, reason: "listed twice" });
        seen.add(f.path);
        pathBytes += Buffer.byteLength(f.path, "utf8");
        if (f.kind === 1) folders++;
        else total += f.size;
      }
      if (pathBytes > P2P_MAX_PATH_BYTES) throw new FerryError("P2pTooManyPathBytes", { max: P2P_MAX_PATH_BYTES }, { max: P2P_MAX_PATH_BYTES });
      // Each size is a safe integer; their sum must be one too (a bigint column, and exact in JSON).
      const max = s.maxTransferBytes > 0 ? s.maxTransferBytes : Number.MAX_SAFE_INTEGER;
      if (total > max) throw new FerryError("P2pTooLarge", { max }, { max });
      await expireDue();
      const device = await targetDevice(args.to);
      if (!device) throw new FerryError("P2pNoSuchDevice");
      if (await busy(device.user_id, args.to)) throw new FerryError("P2pDeviceBusy");
      const now = clock.now();
      const online = device.receiving_until !== null && Number(device.receiving_until) > now;
      let status: P2pStatus = "offered";
      let holdUntil: number | null = null;
      if (!online) {
        if (!args.hold) throw new FerryError("P2pDeviceOffline");
        if (s.holdHours === 0 || !s.relay) throw new FerryError("P2pHandOverOff");
        status = "held";
        holdUntil = now + s.holdHours * 3_600_000;
      }
      const id = randomUUID();
      const sender = await k.selectFrom("users").select("account").where("id", "=", d.userId).executeTakeFirstOrThrow();
      const open = (eb: Kysely<P2pDatabase>) => eb.selectFrom("p2p_transfers").select(sql<string | number>`count(*)`.as("n")).where("status", "in", OPEN);
      await k.transaction().execute(async (tx) => {
        // Open transfers per sender and per receiver device are capped: the sending user's row, then
        // the receiver device's, are locked so that offers from one user, and to one device, are
        // counted one after the other (always in this order: no deadlock between two offers).
        await locking(tx.selectFrom("users").select("id").where("id", "=", d.userId)).executeTakeFirst();
        await locking(tx.selectFrom("p2p_devices").select("id").where("user_id", "=", device.user_id).where("device_id", "=", device.device_id)).executeTakeFirst();
        const mine = await open(tx).where("sender_user_id", "=", d.userId).executeTakeFirst();
        if (Number(mine?.n ?? 0) >= P2P_OPEN_PER_SENDER) throw new FerryError("P2pSenderFull", { max: P2P_OPEN_PER_SENDER }, { max: P2P_OPEN_PER_SENDER });
        const theirs = await open(tx).where("receiver_user_id", "=", device.user_id).where("receiver_device_id", "=", device.device_id).executeTakeFirst();
        if (Number(theirs?.n ?? 0) >= P2P_OPEN_PER_RECEIVER) throw new FerryError("P2pReceiverFull", { max: P2P_OPEN_PER_RECEIVER }, { max: P2P_OPEN_PER_RECEIVER });
        await tx
          .insertInto("p2p_transfers")
          .values({
            id,
            sender_user_id: d.userId,
            sender_account: sender.account,
            sender_device_id: d.deviceId,
            sender_address: (session.address ?? "").slice(0, 64),
            receiver_user_id: device.user_id,
            receiver_account: device.account,
            receiver_device_id: device.device_id,
            status,
            path: status === "held" ? "held" : s.direct ? "direct" : "relay",
            total_bytes: total,
            file_count: args.files.length - folders,
            folder_count: folders,
            created_at: now,
            updated_at: now,
            started_at: null,
            finished_at: null,
            hold_until: holdUntil,
          })
          .execute();
        for (let i = 0; i < args.files.length; i += 500) {
          await tx
            .insertInto("p2p_files")
            .values(args.files.slice(i, i + 500).map((f, j) => ({ transfer_id: id, idx: i + j, path: f.path, size: f.kind === 1 ? 0 : f.size, kind: f.kind })))
            .execute();
        }
      });
      sockets.bind(senderKey(id), session.channel!);
      if (status === "offered") {
        // A summary: the receiver pages through the rest by p2pFiles.
        const summary = args.files.slice(0, P2P_SUMMARY_ENTRIES).map((f) => ({ path: f.path, size: f.kind === 1 ? 0 : f.size, kind: f.kind }));
        sockets.push(receiverKey(device.user_id, device.device_id), {
          event: "p2p.offer",
          data: { transferId: id, from: { account: sender.account, deviceId: d.deviceId }, files: summary, totalBytes: total, fileCount: args.files.length - folders, folderCount: folders, createdAt: now },
        });
      }
      return { transferId: id, status };
    },

    async answer(session: SocketSession, args: Args<"p2pAnswer">): Promise<P2pResults["p2pAnswer"]> {
      await requireEnabled();
      await expireDue();
      const { row, side } = await partyOf(session, args.transferId);
      if (side !== "receiver") throw new FerryError("P2pNoSuchTransfer");
      if (row.status !== "offered" && row.status !== "held") throw new FerryError("P2pWrongState", { status: row.status }, { status: row.status });
      const now = clock.now();
      let status: P2pStatus;
      if (!args.accept) {
        if (!(await move(row.id, ["offered", "held"], { status: "declined", finished_at: now, reason: "declined" }))) throw new FerryError("P2pNoSuchTransfer");
        status = "declined";
      } else {
        let folder = "";
        if (args.target === "ferry") {
          folder = args.folder?.trim() || `/P2P/${row.sender_account}`;
          const inner = folder.replace(/^\/+|\/+$/g, "");
          if (inner === "" || p2pPathProblem(inner)) throw new FerryError("ParameterError", { folder, reason: "a folder of your space" });
          folder = `/${inner}`;
          if (folder.length > P2P_MAX_FOLDER) throw new FerryError("ParameterError", { folder: folder.slice(0, 64), reason: `at most ${P2P_MAX_FOLDER} characters` });
          const perm = session.user.permission;
          if (!hasPermission(perm, Permission.Upload) || !hasPermission(perm, Permission.Mkdir)) throw new FerryError("PermissionDenied");
        }
        // One accepted or running transfer per receiver device, also when two accepts race.
        const accepted = await k.transaction().execute(async (tx) => {
          await locking(tx.selectFrom("p2p_devices").select("id").where("user_id", "=", row.receiver_user_id).where("device_id", "=", row.receiver_device_id)).executeTakeFirst();
          const other = await tx
            .selectFrom("p2p_transfers")
            .select("id")
            .where("receiver_user_id", "=", row.receiver_user_id)
            .where("receiver_device_id", "=", row.receiver_device_id)
            .where("status", "in", ACTIVE)
            .where("id", "<>", row.id)
            .limit(1)
            .executeTakeFirst();
          if (other) return "busy" as const;
          const r = await tx
            .updateTable("p2p_transfers")
            .set({ status: "accepted", started_at: now, updated_at: now, target: args.target, target_folder: folder, receiver_address: (session.address ?? "").slice(0, 64) })
            .where("id", "=", row.id)
            .where("status", "in", ["offered", "held"])
            .executeTakeFirst();
          return Number(r.numUpdatedRows) > 0 ? ("ok" as const) : ("gone" as const);
        });
        if (accepted === "busy") throw new FerryError("P2pDeviceBusy");
        if (accepted === "gone") throw new FerryError("P2pNoSuchTransfer");
        status = "accepted";
      }
      sockets.push(senderKey(row.id), { event: "p2p.answer", data: { transferId: row.id, accept: args.accept, status, target: args.target } });
      if (status === "declined") forget(row.id);
      return { status };
    },

    async signal(session: SocketSession, args: Args<"p2pSignal">): Promise<null> {
      const s = await requireEnabled();
      const { row, side } = await partyOf(session, args.transferId);
      if (!ACTIVE.includes(row.status)) throw new FerryError("P2pWrongState", { status: row.status }, { status: row.status });
      if (!s.direct) throw new FerryError("P2pDirectOff");
      const size = Buffer.byteLength(JSON.stringify(args.data ?? null), "utf8");
      if (size > P2P_SIGNAL_MAX_BYTES) throw new FerryError("P2pSignalTooLarge", { max: P2P_SIGNAL_MAX_BYTES }, { max: P2P_SIGNAL_MAX_BYTES });
      const now = clock.now();
      let count = signalCounts.get(row.id);
      if (!count || count.start <= now - 60_000) signalCounts.set(row.id, (count = { start: now, n: 0 }));
      if (count.n >= P2P_SIGNALS_PER_MINUTE) throw new FerryError("P2pSignalThrottled");
      count.n++;
      // The sender's socket that signals is the transfer's (a reloaded sender page).
      if (side === "sender") sockets.bind(senderKey(row.id), session.channel!);
      sockets.push(otherKey(row, side), { event: "p2p.signal", data: { transferId: row.id, data: args.data ?? null } });
      return null;
    },

    async progress(session: SocketSession, args: Args<"p2pProgress">): Promise<null> {
      const s = await requireEnabled();
      const { row } = await partyOf(session, args.transferId);
      if (!ACTIVE.includes(row.status)) throw new FerryError("P2pWrongState", { status: row.status }, { status: row.status });
      if (args.path) checkPath(s, row, args.path);
      await recordProgress(row, args.file, args.bytes, args.path);
      return null;
    },

    async fileDone(session: SocketSession, args: Args<"p2pFileDone">): Promise<P2pResults["p2pFileDone"]> {
      await requireEnabled();
      const { row, side } = await partyOf(session, args.transferId);
      if (!ACTIVE.includes(row.status)) throw new FerryError("P2pWrongState", { status: row.status }, { status: row.status });
      const now = clock.now();
      // One transaction with the transfer's and the file's rows locked: when both sides report at
      // once, the second sees the first's hash and compares.
      const state = await k.transaction().execute(async (tx) => {
        const locked = await locking(tx.selectFrom("p2p_transfers").select("status").where("id", "=", row.id)).executeTakeFirst();
        if (!locked || !ACTIVE.includes(locked.status)) throw new FerryError("P2pWrongState", { status: locked?.status ?? "" }, { status: locked?.status ?? "" });
        const file = await locking(tx.selectFrom("p2p_files").selectAll().where("transfer_id", "=", row.id).where("idx", "=", args.file)).executeTakeFirst();
        if (!file || Number(file.kind) !== 0) throw new FerryError("ParameterError", { file: args.file, reason: "no such file in the transfer" });
        // The relay holds this file whole and hashed it (relay.ts): the sender's hash must be the one of
        // the bytes it sent there. Asked under the lock: a relay PATCH hashing now compares after us.
        const held = side === "sender" && relayHashOf ? await relayHashOf(row.id, args.file) : null;
        if (held !== null && held !== args.hash) {
          await forgetRelayBytes(tx, row.id, args.file);
          return "relay" as const;
        }
        const sent = side === "sender" ? args.hash : file.hash;
        const got = side === "receiver" ? args.hash : file.receiver_hash;
        const both = sent !== "" && got !== "";
        const files = tx.updateTable("p2p_files").where("transfer_id", "=", row.id).where("idx", "=", args.file);
        let result: "waiting" | "match" | "mismatch";
        if (!both) {
          await files.set(side === "sender" ? { hash: args.hash } : { receiver_hash: args.hash }).execute();
          result = "waiting";
        } else if (sent === got) {
          // Both hashes agree: the receiver has the whole file, whoever said it second.
          await files.set({ hash: sent, receiver_hash: got, state: "done", received: Number(file.size) }).execute();
          result = "match";
        } else {
          // The file is sent again from its start: the receiver's hash and bytes are forgotten (the sender's hash stays).
          await files.set({ hash: sent, receiver_hash: "", state: "mismatch", received: 0 }).execute();
          result = "mismatch";
        }
        await tx.updateTable("p2p_transfers").set({ done_bytes: confirmed(row.id), updated_at: now }).where("id", "=", row.id).execute();
        return result;
      });
      if (state === "relay") {
        await relayDropped(row.id, args.file);
        throw new FerryError("P2pHashMismatch", { file: args.file });
      }
      if (state !== "waiting") {
        // The other side said its hash first and was told "waiting": now it hears how the pair ended.
        sockets.push(otherKey(row, side), { event: "p2p.file", data: { transferId: row.id, file: args.file, state } });
      }
      if (state === "mismatch") throw new FerryError("P2pHashMismatch", { file: args.file });
      return { state };
    },

    /** A page of the transfer's entries, for either party (the offer event and p2pReceive carry the first 20). */
    async files(session: SocketSession, args: Args<"p2pFiles">): Promise<P2pResults["p2pFiles"]> {
      await requireEnabled();
      const { row } = await partyOf(session, args.transferId);
      const rows = await k
        .selectFrom("p2p_files")
        .select(["path", "size", "kind", "received"])
        .where("transfer_id", "=", row.id)
        .orderBy("idx")
        .limit(Math.min(args.limit, P2P_FILES_PAGE_MAX))
        .offset(args.offset)
        .execute();
      return {
        files: rows.map((f) => ({ path: f.path, size: Number(f.size), kind: Number(f.kind), received: Number(f.received) })),
        total: Number(row.file_count) + Number(row.folder_count),
      };
    },

    async end(session: SocketSession, args: Args<"p2pEnd">): Promise<P2pResults["p2pEnd"]> {
      const { row, side } = await partyOf(session, args.transferId);
      if (!OPEN.includes(row.status)) throw new FerryError("P2pWrongState", { status: row.status }, { status: row.status });
      // Only an accepted transfer can be done; an offer ended before its answer is cancelled.
      const status: P2pStatus = ACTIVE.includes(row.status) ? args.result : "cancelled";
      const now = clock.now();
      const reason = (args.reason ?? "").slice(0, 255);
      if (!(await move(row.id, OPEN, { status, finished_at: now, reason }))) throw new FerryError("P2pNoSuchTransfer");
      const ended = (await transferOf(row.id)) ?? row;
      await logEnd(ended, status, now);
      sockets.push(otherKey(row, side), { event: "p2p.end", data: { transferId: row.id, status, reason } });
      forget(row.id);
      return { status };
    },

    async live(query: { text?: string; pageNum: number; pageSize: number }) {
      const counted = await filtered(query.text, OPEN).select(sql<string | number>`count(*)`.as("n")).executeTakeFirst();
      const rows = await filtered(query.text, OPEN)
        .selectAll()
        .orderBy("created_at", "desc")
        .orderBy("id")
        .limit(query.pageSize)
        .offset((query.pageNum - 1) * query.pageSize)
        .execute();
      const list: P2pLiveEntry[] = [];
      for (const row of rows) list.push(await liveEntry(row));
      return { list, total: Number(counted?.n ?? 0), size: query.pageSize, current: query.pageNum };
    },

    async history(query: P2pHistoryQuery) {
      const base = () => {
        let q = filtered(query.text, query.status ? [query.status] : ENDED);
        if (query.from !== undefined) q = q.where("created_at", ">=", query.from);
        if (query.to !== undefined) q = q.where("created_at", "<", query.to);
        return q;
      };
      const counted = await base().select(sql<string | number>`count(*)`.as("n")).executeTakeFirst();
      const rows = await base()
        .selectAll()
        .orderBy("created_at", query.order)
        .orderBy("id")
        .limit(query.pageSize)
        .offset((query.pageNum - 1) * query.pageSize)
        .execute();
      const list: P2pHistoryEntry[] = [];
      for (const row of rows) {
        const finishedAt = row.finished_at === null ? null : Number(row.finished_at);
        list.push({
          ...(await entryOf(row)),
          createdAt: Number(row.created_at),
          updatedAt: Number(row.updated_at),
          finishedAt,
          reason: row.reason,
          durationMs: finishedAt !== null && row.started_at !== null ? finishedAt - Number(row.started_at) : 0,
        });
      }
      return { list, total: Number(counted?.n ?? 0), size: query.pageSize, current: query.pageNum };
    },
  };
}

export type P2p = ReturnType<typeof createP2p>;
