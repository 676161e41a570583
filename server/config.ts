import { readFileSync } from "node:fs";
import path from "node:path";
import * as z from "zod";
import { P2P_RELAY } from "../contract/p2p";

export const EDITIONS = ["free", "pro", "smb", "enterprise"] as const;
export type Edition = (typeof EDITIONS)[number];

const port = z.coerce.number().int().min(0).max(65535);
const seconds = z.coerce.number().int().min(1);
/** Whether `name` is a time zone this runtime knows (Intl throws a RangeError otherwise). */
function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/**
 * Every engine option: its environment name, default and meaning. README and `.env.example`
 * document the same list; `tests/unit/config.test.ts` checks they stay in step.
 */
export const configSchema = z.object({
  FERRY_DATA_DIR: z.string().min(1).default("./data").describe("Data directory: SQLite file, storage, installers."),
  FERRY_INSTALLERS_DIR: z
    .string()
    .min(1)
    .optional()
    .describe("Folder of the desktop client installers served at /download/<platform> (default <data dir>/installers)."),
  FERRY_HOST: z.string().min(1).default("0.0.0.0").describe("Address the engine listens on."),
  FERRY_API_PORT: port.default(8090).describe("REST API port."),
  FERRY_FILE_PORT: port.default(2480).describe("File server port (WebSocket commands, uploads, downloads)."),
  FERRY_FILE_TLS_PORT: port.default(2481).describe("File server port when TLS is configured."),
  FERRY_TLS_CERT: z.string().min(1).optional().describe("PEM certificate (chain) file: with FERRY_TLS_KEY the file server also listens with TLS on FERRY_FILE_TLS_PORT."),
  FERRY_TLS_KEY: z.string().min(1).optional().describe("PEM private key file of FERRY_TLS_CERT."),
  FERRY_WEB_PORT: port.default(3000).describe("Web client port (remix-serve), used by `npm start`."),
  FERRY_ENGINE_URL: z.string().url().optional().describe("Where the web client reaches the engine API (default http://127.0.0.1:<FERRY_API_PORT>)."),
  DATABASE_URL: z
    .string()
    .regex(/^(sqlite:|postgres(ql)?:\/\/|mysql:\/\/|mariadb:\/\/)/, "must start with sqlite:, postgres://, mysql:// or mariadb://")
    .optional()
    .describe("Database. Unset: SQLite file <data dir>/ferry.db. Also postgres://… or mysql://… (MariaDB)."),
  FERRY_ADMIN_PASSWORD: z.string().min(1).optional().describe("Initial administrator password. Unset: generated and printed once at first start."),
  FERRY_HASHID_SALT: z.string().min(1).default("ferry").describe("Salt of the Hashids encoding of credential fields (obfuscation; use TLS)."),
  FERRY_EDITION: z
    .enum(EDITIONS)
    .default("free")
    .describe("Edition without a licence: free. Another value is an unlicensed override for development and tests (docs/licence.md); a valid licence always wins."),
  FERRY_LICENSE_PUBLIC_KEY: z
    .string()
    .regex(/^[A-Za-z0-9+/_-]{43}=?$/, "must be an Ed25519 public key: 32 bytes in base64 or base64url")
    .optional()
    .describe("An extra Ed25519 public key (32 bytes, base64) licences may be signed with, besides the one built in (tests, a reseller's own key; docs/licence.md)."),
  FERRY_TRUSTED_PROXIES: z.string().default("").describe("Comma-separated proxy addresses/CIDRs whose X-Forwarded-For is believed."),
  FERRY_FORWARD_SECRET: z
    .string()
    .min(32, "must be at least 32 characters")
    .optional()
    .describe("Key the web signs visitors' addresses with (same value for web and engine). Unset: generated once into <data dir>/forward-secret."),
  FERRY_LOGIN_ADDRESS_MAX_FAILURES: z.coerce.number().int().min(1).default(20).describe("Wrong passwords from one client address, across all accounts, that lock the address."),
  FERRY_LOGIN_ADDRESS_WINDOW: seconds.default(900).describe("Window of FERRY_LOGIN_ADDRESS_MAX_FAILURES and FERRY_LOOKUP_ADDRESS_MAX, and how long an address lock lasts, in seconds."),
  FERRY_LOOKUP_ADDRESS_MAX: z.coerce.number().int().min(1).default(30).describe("Account look-ups by e-mail one client address may make per FERRY_LOGIN_ADDRESS_WINDOW."),
  FERRY_REFRESH_REUSE_GRACE: z.coerce.number().int().min(0).max(60).default(10).describe("Seconds the previous refresh token still answers with the same new pair (concurrent refreshes)."),
  FERRY_ACCESS_TOKEN_TTL: seconds.default(3600).describe("Access token lifetime in seconds."),
  FERRY_REFRESH_TOKEN_TTL: seconds.default(7 * 24 * 3600).describe("Refresh token lifetime in seconds."),
  FERRY_API_BODY_LIMIT: z.coerce.number().int().min(1024).default(1024 * 1024).describe("Largest accepted JSON body of the REST API, in bytes."),
  FERRY_WEB_ORIGINS: z
    .string()
    .default("")
    .describe("Comma-separated browser origins (scheme://host:port) of the web client: allowed on the file server besides pages on its own host name, and the only bases share links may be built on (the first is the default)."),
  FERRY_PREVIEW: z
    .enum(["edition", "on", "off"])
    .default("edition")
    .describe("Inline preview: edition (enterprise only, as the original), on (every edition) or off."),
  FERRY_ACCEL_REDIRECT: z
    .string()
    .regex(/^(\/[^\s?#]*)?$/, "must be empty or an internal nginx location such as /ferry-storage")
    .default("")
    .describe("Behind nginx: hand download bytes to nginx with X-Accel-Redirect to this internal location mapped to <data dir>/storage."),
  FERRY_DOWNLOAD_TICKET_TTL: seconds.default(300).describe("Lifetime of a signed download or preview URL, seconds."),
  FERRY_SECRET: z
    .string()
    .min(32, "must be at least 32 characters")
    .optional()
    .describe("Key material for secrets the engine stores encrypted (SMTP passwords). Unset: generated once into <data dir>/engine-secret."),
  FERRY_SMTP_ALLOW_PRIVATE: z
    .enum(["0", "1"])
    .default("0")
    .describe("1: SMTP hosts on loopback, private, link-local or metadata addresses are allowed (a mail relay on the LAN)."),
  FERRY_SMTP_CA: z.string().min(1).optional().describe("PEM file of extra certificate authorities trusted for SMTP TLS (e.g. an internal relay's CA)."),
  FERRY_AUTH_HTTP_ALLOW_PRIVATE: z
    .enum(["0", "1"])
    .default("0")
    .describe("1: the external HTTP authentication URL may be on a loopback, private, link-local or metadata address (an auth service on the LAN)."),
  FERRY_PAM_SERVICE: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/, "must be a PAM service name (a file name in /etc/pam.d)")
    .default("login")
    .describe("PAM service the system authentication way checks host accounts with (/etc/pam.d/<name>)."),
  FERRY_WALK_MAX_DEPTH: z.coerce.number().int().min(1).default(64).describe("Deepest folder level below its start that a folder walk (zip, search, size sums, copy) enters; deeper trees are refused (code 4260)."),
  FERRY_WALK_MAX_ENTRIES: z.coerce.number().int().min(1).default(1_000_000).describe("Entries one folder walk (size sums, copy) looks at before it gives up (code 4260); a search stops there too, answering truncated."),
  FERRY_ZIP_MAX_ENTRIES: z.coerce.number().int().min(1).default(100_000).describe("Entries one zip download may hold (each is kept in memory while the zip streams); more are refused (code 4260)."),
  FERRY_THUMBNAIL_MAX_BYTES: z.coerce.number().int().min(1024).default(30 * 1024 * 1024).describe("Largest image file the engine makes a thumbnail of, in bytes; larger ones are refused (code 4300)."),
  FERRY_THUMBNAIL_MAX_PIXELS: z.coerce.number().int().min(1).default(50_000_000).describe("Most pixels (width × height) of an image the engine decodes for a thumbnail; larger ones are refused (code 4300)."),
  FERRY_THUMBNAIL_CACHE_BYTES: z.coerce.number().int().min(0).default(256 * 1024 * 1024).describe("Disk space of the thumbnail cache (<data dir>/thumbnails); the least recently used are removed beyond it."),
  FERRY_UPLOAD_BUFFER_BYTES: z.coerce
    .number()
    .int()
    .min(5 * 1024 * 1024)
    .default(256 * 1024 * 1024)
    .describe("Memory, in bytes, that all uploads into object storage together may hold for the parts they are filling; past it a request with bytes is refused for now (503, Retry-After). Keep it several times the largest slice size of an S3 storage."),
  FERRY_P2P_RELAY_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .max(Number.MAX_SAFE_INTEGER)
    .default(10 * 1024 * 1024 * 1024)
    .describe("Disk space, in bytes, that the P2P relay's held bytes (<data dir>/.ferry-tmp/p2p) may take on this engine, all transfers together; a relay PATCH that would go over is refused with 4703 (507) before its body is read."),
  FERRY_P2P_RELAY_IDLE: seconds
    .default(P2P_RELAY.bodyIdleMs / 1000)
    .describe("Seconds after which a P2P relay PATCH whose body sends nothing is stopped (408, 4184) and the room it reserved freed; the sender resumes from HEAD's offset."),
  FERRY_P2P_RELAY_WINDOW_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .max(Number.MAX_SAFE_INTEGER)
    .default(P2P_RELAY.windowBytes)
    .describe("Bytes of FERRY_P2P_RELAY_MAX_BYTES one P2P relay PATCH reserves ahead of what it wrote (not its whole Content-Length): the window grows as bytes land; one that cannot grow ends the PATCH with 4703."),
  FERRY_UPLOAD_BUFFER_IDLE: seconds.default(600).describe("Seconds after which an upload into object storage that sent no byte loses the bytes it holds in memory (its offset goes back to its stored parts; the client sends them again)."),
  FERRY_SHARE_RATE_WINDOW: seconds.default(900).describe("Window, seconds, of the per-address limits on share tokens and counted downloads."),
  FERRY_SHARE_TOKENS_PER_ADDRESS: seconds.default(30).describe("Share tokens (GET /api/share/link/info) one client address is issued per window; more are refused with 4238."),
  FERRY_SHARE_LIVE_TOKENS: seconds.default(10).describe("Unexpired share tokens kept per link and client address; a new one replaces the oldest."),
  FERRY_SHARE_COUNTS_PER_ADDRESS: seconds.default(60).describe("Share downloads counted per client address per window (a repeat of the same selection of a link counts once)."),
  FERRY_TRANSFER_NOTICE_WINDOW: seconds
    .default(60)
    .describe("Seconds over which the transfers of a user with notifyAdmin are gathered into one notice (and mail) to the administrator."),
  FERRY_TIME_ZONE: z
    .string()
    .optional()
    .refine((v) => v === undefined || isTimeZone(v), "must be an IANA time zone name such as Europe/Berlin or UTC")
    .describe("IANA time zone in which the administrator's speed periods start and end (docs/file-server.md, \"Speed periods\"); the process's own (TZ) when unset."),
  FERRY_PURGE_INTERVAL: seconds.default(600).describe("Seconds between purges of expired share tokens, attempt counters and rate counters."),
  FERRY_AUTOCLEAN_INTERVAL: seconds.default(86_400).describe("Seconds between two scheduled auto-clean runs of a local storage whose auto-clean is on (docs/storage.md, \"Auto-clean\")."),
  FERRY_DASHBOARD_SAMPLE_MS: z.coerce.number().int().min(100).max(60_000).default(5000).describe("Milliseconds between the dashboard's CPU, memory and network samples."),
  FERRY_DASHBOARD_WINDOW: z.coerce.number().int().min(10).max(86_400).default(600).describe("Seconds of samples the dashboard's charts keep (the last minutes)."),
  FERRY_EVENT_BIN_DIR: z
    .string()
    .min(1)
    .optional()
    .describe("Events directory (docs/events.md): the only place an event's executable may be (links resolved). Unset: events cannot be saved or run. Set at install; the web cannot change it."),
  FERRY_EVENT_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4).describe("Event executables running at once; more wait in the queue."),
  FERRY_EVENT_QUEUE: z.coerce.number().int().min(0).max(100_000).default(256).describe("Event runs waiting at most; past it a fired event is dropped and its run log says so."),
  FERRY_LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info").describe("Log level."),
  FERRY_CONFIG: z.string().optional().describe("Optional JSON file with any of these keys; the environment wins."),
  FERRY_BENCH_LOGS_OFF: z
    .enum(["0", "1"])
    .default("0")
    .describe("Bench only (`npm run bench`, part `logs`): 1 writes no operation or transfer log at all, so the bench can measure what the log costs. Never on a real server: the administrator's logs and statistics stay empty."),
});

export type RawConfig = z.infer<typeof configSchema>;

export interface Config {
  dataDir: string;
  installersDir: string;
  host: string;
  apiPort: number;
  filePort: number;
  fileTlsPort: number;
  /** Certificate and key files for the file server's TLS port; null: plain only. */
  tls: { cert: string; key: string } | null;
  webPort: number;
  engineUrl: string;
  databaseUrl: string;
  adminPassword?: string;
  hashidSalt: string;
  edition: Edition;
  /** FERRY_LICENSE_PUBLIC_KEY: an extra key licences may be signed with; null: only the built-in one. */
  licencePublicKey: string | null;
  trustedProxies: string[];
  /** FERRY_FORWARD_SECRET, or null: the key file in the data directory (contract/forwarding.ts). */
  forwardSecret: string | null;
  /** Per client address: wrong passwords that lock it, look-ups allowed, both within windowMs. */
  addressLimits: { maxFailures: number; maxLookups: number; windowMs: number };
  refreshReuseGraceMs: number;
  accessTokenTtl: number;
  refreshTokenTtl: number;
  apiBodyLimit: number;
  logLevel: RawConfig["FERRY_LOG_LEVEL"];
  webOrigins: string[];
  preview: RawConfig["FERRY_PREVIEW"];
  accelRedirect: string;
  downloadTicketTtl: number;
  /** FERRY_SECRET, or null: the key file in the data directory (server/mail/secret.ts). */
  secret: string | null;
  smtpAllowPrivate: boolean;
  /** Extra CA file for SMTP TLS; null: the system's roots only. */
  smtpCa: string | null;
  /** FERRY_AUTH_HTTP_ALLOW_PRIVATE: the external HTTP way may reach private addresses. */
  authHttpAllowPrivate: boolean;
  /** FERRY_PAM_SERVICE: the PAM service of the system way. */
  pamService: string;
  /** Per-address limits on anonymous share calls (docs/security.md, section 1). */
  shareLimits: { windowSeconds: number; tokensPerAddress: number; liveTokens: number; countsPerAddress: number };
  /** Seconds between purges of expired rows. */
  purgeInterval: number;
  /** Milliseconds between two scheduled auto-clean runs of a storage (FERRY_AUTOCLEAN_INTERVAL). */
  autoCleanIntervalMs: number;
  /** Milliseconds over which a notify-admin user's transfers make one notice to the administrator (docs/mail.md, "Transfer notices"). */
  transferNoticeWindowMs: number;
  /** IANA time zone of the speed periods' clock times (FERRY_TIME_ZONE, else the process's). */
  timeZone: string;
  /** The dashboard's CPU and network charts: sample interval and window, milliseconds. */
  dashboardSamples: { intervalMs: number; windowMs: number };
  /** Folder walks: deepest level entered, entries looked at (FERRY_WALK_MAX_*), entries of one zip (FERRY_ZIP_MAX_ENTRIES). */
  walkMaxDepth: number;
  walkMaxEntries: number;
  zipMaxEntries: number;
  /** Thumbnails (docs/file-server.md, "Thumbnails"): largest source file and image, and the cache's size. */
  thumbnails: { maxBytes: number; maxPixels: number; cacheBytes: number };
  /** Uploads into object storage (docs/file-server.md, "Uploads into object storage"): memory for parts being filled, all uploads together, and how long an idle upload keeps its share. */
  uploadBuffers: { maxBytes: number; idleMs: number };
  /** The P2P relay (docs/p2p.md, "Relay and hand-over"): disk its held bytes may take, all transfers together. */
  p2pRelayMaxBytes: number;
  /** The P2P relay: how long a PATCH's body may send nothing, and the bytes a PATCH reserves ahead (docs/p2p.md). */
  p2pRelay: { idleMs: number; windowBytes: number };
  /** Events (docs/events.md): the events directory (FERRY_EVENT_BIN_DIR, null: none), runs at once, runs queued at most. */
  events: { binDir: string | null; concurrency: number; maxQueued: number };
  /** FERRY_BENCH_LOGS_OFF: the bench's baseline without the operation and transfer logs (docs/bench.md, "Log cost"). */
  logsOff: boolean;
}

export class ConfigError extends Error {}

/** Reads the optional JSON file named by FERRY_CONFIG, then the environment, and validates both. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  let fromFile: Record<string, unknown> = {};
  if (env.FERRY_CONFIG) {
    try {
      fromFile = JSON.parse(readFileSync(env.FERRY_CONFIG, "utf8")) as Record<string, unknown>;
    } catch (error) {
      throw new ConfigError(`FERRY_CONFIG ${env.FERRY_CONFIG}: ${(error as Error).message}`);
    }
  }
  const known = Object.keys(configSchema.shape);
  const merged: Record<string, unknown> = { ...fromFile };
  for (const key of known) if (env[key] !== undefined && env[key] !== "") merged[key] = env[key];
  const parsed = configSchema
    .strict()
    .refine((c) => !c.FERRY_TLS_CERT === !c.FERRY_TLS_KEY, { message: "FERRY_TLS_CERT and FERRY_TLS_KEY go together", path: ["FERRY_TLS_KEY"] })
    .safeParse(merged);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".") || "(file)"}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}`);
  }
  const c = parsed.data;
  const dataDir = path.resolve(c.FERRY_DATA_DIR);
  return {
    dataDir,
    installersDir: c.FERRY_INSTALLERS_DIR ? path.resolve(c.FERRY_INSTALLERS_DIR) : path.join(dataDir, "installers"),
    host: c.FERRY_HOST,
    apiPort: c.FERRY_API_PORT,
    filePort: c.FERRY_FILE_PORT,
    fileTlsPort: c.FERRY_FILE_TLS_PORT,
    tls: c.FERRY_TLS_CERT && c.FERRY_TLS_KEY ? { cert: path.resolve(c.FERRY_TLS_CERT), key: path.resolve(c.FERRY_TLS_KEY) } : null,
    webPort: c.FERRY_WEB_PORT,
    engineUrl: c.FERRY_ENGINE_URL ?? `http://127.0.0.1:${c.FERRY_API_PORT}`,
    databaseUrl: c.DATABASE_URL ?? `sqlite:${path.join(dataDir, "ferry.db")}`,
    adminPassword: c.FERRY_ADMIN_PASSWORD,
    hashidSalt: c.FERRY_HASHID_SALT,
    edition: c.FERRY_EDITION,
    licencePublicKey: c.FERRY_LICENSE_PUBLIC_KEY ?? null,
    trustedProxies: c.FERRY_TRUSTED_PROXIES.split(",").map((s) => s.trim()).filter(Boolean),
    forwardSecret: c.FERRY_FORWARD_SECRET ?? null,
    addressLimits: { maxFailures: c.FERRY_LOGIN_ADDRESS_MAX_FAILURES, maxLookups: c.FERRY_LOOKUP_ADDRESS_MAX, windowMs: c.FERRY_LOGIN_ADDRESS_WINDOW * 1000 },
    refreshReuseGraceMs: c.FERRY_REFRESH_REUSE_GRACE * 1000,
    accessTokenTtl: c.FERRY_ACCESS_TOKEN_TTL,
    refreshTokenTtl: c.FERRY_REFRESH_TOKEN_TTL,
    apiBodyLimit: c.FERRY_API_BODY_LIMIT,
    logLevel: c.FERRY_LOG_LEVEL,
    webOrigins: c.FERRY_WEB_ORIGINS.split(",").map((s) => s.trim().replace(/\/$/, "")).filter(Boolean),
    preview: c.FERRY_PREVIEW,
    accelRedirect: c.FERRY_ACCEL_REDIRECT.replace(/\/$/, ""),
    downloadTicketTtl: c.FERRY_DOWNLOAD_TICKET_TTL,
    secret: c.FERRY_SECRET ?? null,
    smtpAllowPrivate: c.FERRY_SMTP_ALLOW_PRIVATE === "1",
    smtpCa: c.FERRY_SMTP_CA ? path.resolve(c.FERRY_SMTP_CA) : null,
    authHttpAllowPrivate: c.FERRY_AUTH_HTTP_ALLOW_PRIVATE === "1",
    pamService: c.FERRY_PAM_SERVICE,
    shareLimits: {
      windowSeconds: c.FERRY_SHARE_RATE_WINDOW,
      tokensPerAddress: c.FERRY_SHARE_TOKENS_PER_ADDRESS,
      liveTokens: c.FERRY_SHARE_LIVE_TOKENS,
      countsPerAddress: c.FERRY_SHARE_COUNTS_PER_ADDRESS,
    },
    purgeInterval: c.FERRY_PURGE_INTERVAL,
    autoCleanIntervalMs: c.FERRY_AUTOCLEAN_INTERVAL * 1000,
    transferNoticeWindowMs: c.FERRY_TRANSFER_NOTICE_WINDOW * 1000,
    timeZone: c.FERRY_TIME_ZONE ?? Intl.DateTimeFormat().resolvedOptions().timeZone,
    dashboardSamples: { intervalMs: c.FERRY_DASHBOARD_SAMPLE_MS, windowMs: c.FERRY_DASHBOARD_WINDOW * 1000 },
    walkMaxDepth: c.FERRY_WALK_MAX_DEPTH,
    walkMaxEntries: c.FERRY_WALK_MAX_ENTRIES,
    zipMaxEntries: c.FERRY_ZIP_MAX_ENTRIES,
    thumbnails: { maxBytes: c.FERRY_THUMBNAIL_MAX_BYTES, maxPixels: c.FERRY_THUMBNAIL_MAX_PIXELS, cacheBytes: c.FERRY_THUMBNAIL_CACHE_BYTES },
    uploadBuffers: { maxBytes: c.FERRY_UPLOAD_BUFFER_BYTES, idleMs: c.FERRY_UPLOAD_BUFFER_IDLE * 1000 },
    p2pRelayMaxBytes: c.FERRY_P2P_RELAY_MAX_BYTES,
    p2pRelay: { idleMs: c.FERRY_P2P_RELAY_IDLE * 1000, windowBytes: c.FERRY_P2P_RELAY_WINDOW_BYTES },
    events: { binDir: c.FERRY_EVENT_BIN_DIR ? path.resolve(c.FERRY_EVENT_BIN_DIR) : null, concurrency: c.FERRY_EVENT_CONCURRENCY, maxQueued: c.FERRY_EVENT_QUEUE },
    logsOff: c.FERRY_BENCH_LOGS_OFF === "1",
  };
}
