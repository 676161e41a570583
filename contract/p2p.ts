import * as z from "zod";
import { nameProblem } from "./validation";

/**
 * Point to point (docs/p2p.md): sending between browsers by device id. The file server's socket
 * commands and events of P2P, the status look-up, the settings and the administrator's live and
 * history lists. Shared by the engine and the web. (No import of ./files: it imports this module.)
 */

/** A device id: 9 digits, the first not 0 (shown as "482 913 557"). */
export const DEVICE_ID_PATTERN = /^[1-9]\d{8}$/;
/** A typed device id with its spaces taken out. */
export const deviceId = z
  .string()
  .max(32)
  .transform((v) => v.replace(/\s+/g, ""))
  .pipe(z.string().regex(DEVICE_ID_PATTERN, "9 digits, the first not 0"));
/** The device key a browser keeps (32 random bytes, base64url); the engine stores only its SHA-256. */
export const deviceKey = z.string().regex(/^[A-Za-z0-9_-]{43}$/, "32 bytes, base64url without padding");
export const transferId = z.string().uuid();
const hashHex = z.string().regex(/^[0-9a-f]{64}$/, "64 lowercase hex digits");

/** Devices kept per user: past it the least recently seen go (a browser whose site data was cleared is a new device). */
export const P2P_DEVICES_PER_USER = 50;
/** Most entries (files and folders) in one offer: the spec's share limit. */
export const P2P_MAX_ENTRIES = 10_000;
/** Largest `p2pSignal` payload (SDP or ICE candidate), as JSON text. */
export const P2P_SIGNAL_MAX_BYTES = 16 * 1024;
/** Signals per transfer per minute. */
export const P2P_SIGNALS_PER_MINUTE = 200;
/** Status look-ups and offers (together, failed ones too) per user per minute (then 4705). */
export const P2P_STATUS_PER_MINUTE = 60;
/** Transfers not ended (offered, held, accepted, running) one user may have sent (then 4716). */
export const P2P_OPEN_PER_SENDER = 20;
/** Transfers not ended one receiver device may have waiting or running (then 4717). */
export const P2P_OPEN_PER_RECEIVER = 50;
/** Entries of a transfer carried by the p2p.offer event and the p2pReceive reply; the rest by p2pFiles. */
export const P2P_SUMMARY_ENTRIES = 20;
/** Most entries one p2pFiles call answers. */
export const P2P_FILES_PAGE_MAX = 1000;
/** An ended transfer's manifest (p2p_files) is deleted this long after its end; the transfer row stays (history). */
export const P2P_FILES_RETENTION_MS = 30 * 24 * 3_600_000;
/** Most bytes of all the paths of one offer together (the offer must fit in one socket message). */
export const P2P_MAX_PATH_BYTES = 1024 * 1024;
/** Longest Ferry folder an accepted transfer goes into. */
export const P2P_MAX_FOLDER = 1024;
/** An offer not answered in this time expires. */
export const P2P_OFFER_TTL_MS = 10 * 60_000;
/** An accepted or running transfer with no progress, hash or end reported for this long fails (its receiver is no longer busy). */
export const P2P_IDLE_MS = 10 * 60_000;
/** The receiving lease of an open receiver page: renewed every 20 s by the engine while its socket is open. */
export const P2P_RECEIVE_LEASE_MS = 60_000;
export const P2P_RECEIVE_RENEW_MS = 20_000;

/** The status look-up's results (spec section 7): 0 ready, 33 no such device (app.p2p.error3), 35 busy (app.p2p.error4). */
/**
 * The relay on the file server (docs/p2p.md, "Relay and hand-over"): `<path><transfer id>/<file index>`,
 * PATCH (the sender) appends at `Ferry-Offset`, HEAD answers `Ferry-Offset` and `Ferry-Size`, GET (the
 * receiver) streams what is held and waits for more, up to `idleMs` with nothing new.
 */
/**
 * The relay (docs/p2p.md, "Relay and hand-over"). idleMs: a waiting GET ends short after this long with
 * nothing new; bodyIdleMs: a PATCH whose body sends nothing this long is stopped (FERRY_P2P_RELAY_IDLE);
 * windowBytes: what one PATCH reserves ahead of what it wrote (FERRY_P2P_RELAY_WINDOW_BYTES);
 * userShare: the part of FERRY_P2P_RELAY_MAX_BYTES one sender user may hold and reserve;
 * getsPerUser: relay GETs one receiver user may have open at once (more: 429).
 */
export const P2P_RELAY = {
  path: "/p2p/",
  offsetHeader: "Ferry-Offset",
  sizeHeader: "Ferry-Size",
  idleMs: 30_000,
  bodyIdleMs: 30_000,
  windowBytes: 64 * 1024 * 1024,
  userShare: 0.5,
  getsPerUser: 8,
} as const;

export const P2P_STATUS = { Ready: 0, NoDevice: 33, Busy: 35 } as const;

export const P2P_STATUSES = ["offered", "held", "accepted", "running", "done", "failed", "cancelled", "declined", "expired"] as const;
export type P2pStatus = (typeof P2P_STATUSES)[number];
/** Statuses of a transfer that has not ended. */
export const P2P_OPEN_STATUSES = ["offered", "held", "accepted", "running"] as const satisfies readonly P2pStatus[];
/** The statuses during which the two parties may signal each other and the receiver is busy. */
export const P2P_ACTIVE_STATUSES = ["accepted", "running"] as const satisfies readonly P2pStatus[];
export const P2P_PATHS = ["direct", "relay", "held"] as const;
export const P2P_TARGETS = ["ferry", "local"] as const;

/** A relative path of an offer: segments joined by "/", each passing the name rule (no "..", no absolute path). */
export function p2pPathProblem(path: string): string | null {
  if (path.length === 0 || path.length > 4096) return "length";
  if (path.startsWith("/")) return "absolute";
  for (const segment of path.split("/")) {
    const problem = nameProblem(segment);
    if (problem) return problem;
  }
  return null;
}
const relativePath = z
  .string()
  .max(4096)
  .refine((p) => p2pPathProblem(p) === null, "a relative path whose every segment is a valid name");

export const p2pFile = z.object({
  path: relativePath,
  size: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  /** 0 a file, 1 an (empty) folder. */
  kind: z.union([z.literal(0), z.literal(1)]).default(0),
});
export type P2pFile = z.output<typeof p2pFile>;

/** The P2P socket commands (contract/files.ts socketCommands spreads them). */
export const p2pCommands = {
  /** The browser's device for this account: created at first use; the socket is that device from now on. */
  p2pRegister: z.object({ deviceKey }),
  /** This socket is (allow: true) or is no longer (false) the device's receiver page. */
  p2pReceive: z.object({ deviceId, allow: z.boolean() }),
  p2pOffer: z.object({
    to: deviceId,
    fromDevice: deviceId,
    files: z.array(p2pFile).min(1).max(P2P_MAX_ENTRIES),
    /** Leave the files with the engine when the receiver is offline (hand-over). */
    hold: z.boolean().default(false),
  }),
  p2pAnswer: z.object({
    transferId,
    accept: z.boolean(),
    target: z.enum(P2P_TARGETS).default("local"),
    /** The receiver's folder (personal space) for target "ferry"; default /P2P/<sender>. At most 1024 characters. */
    folder: z.string().max(P2P_MAX_FOLDER).optional(),
  }),
  /** An SDP or ICE candidate for the other party (≤ 16 KiB as JSON). */
  p2pSignal: z.object({ transferId, data: z.unknown() }),
  p2pProgress: z.object({ transferId, file: z.number().int().min(0), bytes: z.number().int().min(0), path: z.enum(P2P_PATHS).optional() }),
  /** The sender says the file's hash (as it ends); the receiver says the one it computed: they must agree (4706). */
  p2pFileDone: z.object({ transferId, file: z.number().int().min(0), hash: hashHex }),
  p2pEnd: z.object({ transferId, result: z.enum(["done", "failed", "cancelled"]), reason: z.string().max(255).optional() }),
  /** A page of the transfer's entries (either party): the offer event and p2pReceive carry only the first 20. */
  p2pFiles: z.object({ transferId, offset: z.number().int().min(0).default(0), limit: z.number().int().min(1).max(P2P_FILES_PAGE_MAX).default(P2P_FILES_PAGE_MAX) }),
} as const;

/** A transfer as its two parties see it: `files` is the first 20 entries (p2pFiles pages through all of them). */
export interface P2pTransferView {
  transferId: string;
  status: P2pStatus;
  path: string;
  from: { account: string; deviceId: string };
  to: { account: string; deviceId: string };
  files: { path: string; size: number; kind: number; received: number }[];
  totalBytes: number;
  doneBytes: number;
  fileCount: number;
  folderCount: number;
  target: string;
  folder: string;
  createdAt: number;
  holdUntil: number | null;
}

export interface P2pResults {
  p2pRegister: { deviceId: string };
  p2pReceive: { held: P2pTransferView[]; active: P2pTransferView[] };
  p2pOffer: { transferId: string; status: P2pStatus };
  p2pAnswer: { status: P2pStatus };
  p2pSignal: null;
  p2pProgress: null;
  /** match: both hashes known and equal; waiting: the other side's not said yet. */
  p2pFileDone: { state: "match" | "waiting" };
  p2pEnd: { status: P2pStatus };
  /** Entries `offset`… in manifest order (index = offset + position); `total` files and folders in all. */
  p2pFiles: { files: { path: string; size: number; kind: number; received: number }[]; total: number };
}

/** The P2P events (contract/files.ts socketEvent): to one device's socket. */
export const p2pEvents = [
  z.object({
    event: z.literal("p2p.offer"),
    data: z.object({
      transferId: z.string(),
      from: z.object({ account: z.string(), deviceId: z.string() }),
      /** The first 20 entries; fileCount + folderCount say how many there are (p2pFiles for the rest). */
      files: z.array(z.object({ path: z.string(), size: z.number(), kind: z.number() })),
      totalBytes: z.number(),
      fileCount: z.number(),
      folderCount: z.number(),
      createdAt: z.number(),
    }),
  }),
  z.object({ event: z.literal("p2p.answer"), data: z.object({ transferId: z.string(), accept: z.boolean(), status: z.enum(P2P_STATUSES), target: z.string() }) }),
  z.object({ event: z.literal("p2p.signal"), data: z.object({ transferId: z.string(), data: z.unknown() }) }),
  z.object({ event: z.literal("p2p.end"), data: z.object({ transferId: z.string(), status: z.enum(P2P_STATUSES), reason: z.string() }) }),
  /** The other party completed a file's pair of hashes: match, or mismatch (the file is to be sent again). */
  z.object({ event: z.literal("p2p.file"), data: z.object({ transferId: z.string(), file: z.number(), state: z.enum(["match", "mismatch"]) }) }),
  /** Another socket (tab) of the device became its receiver: this one no longer is. */
  z.object({ event: z.literal("p2p.replaced"), data: z.object({ deviceId: z.string() }) }),
] as const;

/** `GET /api/transmission/ptp/status`: `?data={"id":"482913557"}` or `?id=482913557`. */
export const p2pStatusQuery = z
  .object({ data: z.string().max(256).optional(), id: z.string().max(32).optional() })
  .strict()
  .transform((q, ctx) => {
    let id = q.id;
    if (q.data !== undefined) {
      try {
        const parsed = JSON.parse(q.data) as unknown;
        if (parsed && typeof parsed === "object" && typeof (parsed as { id?: unknown }).id === "string") id = (parsed as { id: string }).id;
        else if (parsed && typeof parsed === "object" && typeof (parsed as { id?: unknown }).id === "number") id = String((parsed as { id: number }).id);
      } catch {
        ctx.addIssue({ code: "custom", message: "data must be JSON: {\"id\":\"<device id>\"}", path: ["data"] });
        return z.NEVER;
      }
    }
    if (id === undefined) {
      ctx.addIssue({ code: "custom", message: "id is required", path: ["id"] });
      return z.NEVER;
    }
    return { id: id.replace(/\s+/g, "") };
  });
export const p2pStatusAnswer = z.object({
  result: z.union([z.literal(0), z.literal(33), z.literal(35)]),
  online: z.boolean().describe("The device's receiver page is open with receiving allowed; false: only a hand-over is possible."),
  account: z.string().describe("The device's account; empty unless result is 0 or 35."),
});
export type P2pStatusAnswer = z.infer<typeof p2pStatusAnswer>;

/** The administrator's P2P settings (docs/p2p.md, "Settings"), enforced by the engine. */
export const p2pSettings = z.object({
  enabled: z.boolean(),
  direct: z.boolean(),
  relay: z.boolean(),
  holdHours: z.number().int().min(0).max(24 * 365),
  /** Largest total size of one transfer; 0 no limit. */
  maxTransferBytes: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  iceServers: z.array(z.string().regex(/^(stun|stuns|turn|turns):[^\s]{1,250}$/, "stun:, stuns:, turn: or turns: URL")).max(10),
});
export type P2pSettings = z.infer<typeof p2pSettings>;
export const P2P_DEFAULTS: P2pSettings = { enabled: true, direct: true, relay: true, holdHours: 72, maxTransferBytes: 0, iceServers: [] };
export const p2pSettingsBody = p2pSettings.partial().strict();

const party = z.object({ userId: z.number().int(), account: z.string(), deviceId: z.string(), address: z.string() });
export const p2pLiveEntry = z.object({
  transferId: z.string(),
  status: z.enum(P2P_STATUSES),
  path: z.string(),
  sender: party,
  receiver: party,
  names: z.array(z.string()).describe("The first 20 top-level names."),
  totalBytes: z.number().int(),
  doneBytes: z.number().int(),
  fileCount: z.number().int(),
  folderCount: z.number().int(),
  speed: z.number().describe("Bytes per second over the last progress reports."),
  createdAt: z.number().int(),
  updatedAt: z.number().int(),
  inFlight: z.array(z.object({ file: z.number().int(), path: z.string(), size: z.number().int(), received: z.number().int() })),
});
export type P2pLiveEntry = z.infer<typeof p2pLiveEntry>;

const paging = {
  text: z.string().max(200).optional().describe("Part of an account (no case) or a device id."),
  pageNum: z.coerce.number().int().min(1).default(1),
  pageSize: z.coerce.number().int().min(1).max(100).default(20),
};
export const p2pLiveQuery = z.object(paging).strict();
export const p2pLivePage = z.object({ list: z.array(p2pLiveEntry), total: z.number().int(), size: z.number().int(), current: z.number().int() });

export const p2pHistoryQuery = z
  .object({
    ...paging,
    status: z.enum(P2P_STATUSES).optional(),
    from: z.coerce.number().int().min(0).max(8_640_000_000_000).optional().describe("Unix ms, inclusive (creation)."),
    to: z.coerce.number().int().min(0).max(8_640_000_000_000).optional().describe("Unix ms, exclusive (creation)."),
    order: z.enum(["asc", "desc"]).default("desc"),
  })
  .strict();
export type P2pHistoryQuery = z.infer<typeof p2pHistoryQuery>;
export const p2pHistoryEntry = p2pLiveEntry.omit({ speed: true, inFlight: true }).extend({ finishedAt: z.number().int().nullable(), reason: z.string(), durationMs: z.number().int() });
export type P2pHistoryEntry = z.infer<typeof p2pHistoryEntry>;
export const p2pHistoryPage = z.object({ list: z.array(p2pHistoryEntry), total: z.number().int(), size: z.number().int(), current: z.number().int() });
