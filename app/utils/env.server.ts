import * as z from "zod";
import { DEFAULT_LOCAL_CLIENT_PORTS } from "../client/protocol";

const port = z.coerce.number().int().min(1).max(65535);

/** The web client's environment; the engine's own options live in server/config.ts. */
const schema = z
  .object({
    NODE_ENV: z.enum(["production", "development", "test"]).default("production"),
    FERRY_API_PORT: port.default(8090),
    FERRY_ENGINE_URL: z.url({ protocol: /^https?$/ }).optional(),
    FERRY_DATA_DIR: z.string().default("./data"),
    FERRY_HASHID_SALT: z.string().min(1).default("ferry"),
    FERRY_SESSION_SECRET: z.string().min(32).optional(),
    FERRY_FORWARD_SECRET: z.string().min(32).optional(),
    FERRY_ENGLISH_ONLY: z.enum(["0", "1", "true", "false"]).default("0"),
    FERRY_WEB_BEHIND_PROXY: z.enum(["0", "1", "true", "false"]).default("0"),
    FERRY_LOCAL_CLIENT_PORTS: z
      .string()
      .default(DEFAULT_LOCAL_CLIENT_PORTS.join(","))
      .transform((text) => text.split(",").map((p) => Number(p.trim())))
      .pipe(z.array(z.number().int().min(1).max(65535)).min(1).max(10)),
    FERRY_WEB_FORM_LIMIT: z.coerce.number().int().min(1024).max(16 * 1024 * 1024).default(64 * 1024),
    FERRY_WEB_SHARE_FORM_LIMIT: z.coerce.number().int().min(1024).max(64 * 1024 * 1024).default(1024 * 1024),
  })
  .transform((e) => ({
    NODE_ENV: e.NODE_ENV,
    // No trailing slash, so `${FERRY_ENGINE_URL}${path}` always joins cleanly.
    FERRY_ENGINE_URL: (e.FERRY_ENGINE_URL ?? `http://127.0.0.1:${e.FERRY_API_PORT}`).replace(/\/+$/, ""),
    FERRY_DATA_DIR: e.FERRY_DATA_DIR,
    FERRY_HASHID_SALT: e.FERRY_HASHID_SALT,
    FERRY_SESSION_SECRET: e.FERRY_SESSION_SECRET,
    /** The key the visitor's address is signed with for the engine (contract/forwarding.ts); unset: the data directory's file. */
    FERRY_FORWARD_SECRET: e.FERRY_FORWARD_SECRET,
    /** The English edition: English only, no language toggles. */
    englishOnly: e.FERRY_ENGLISH_ONLY === "1" || e.FERRY_ENGLISH_ONLY === "true",
    /** A reverse proxy in front of the web sets X-Forwarded-For; only then is it passed to the engine. */
    behindProxy: e.FERRY_WEB_BEHIND_PROXY === "1" || e.FERRY_WEB_BEHIND_PROXY === "true",
    /** Public: the page looks for the local desktop client on these ports, in this order. */
    localClientPorts: e.FERRY_LOCAL_CLIENT_PORTS,
    /** The largest request body an action reads (utils/form.server.ts), bytes; larger ones get 413. */
    formLimit: e.FERRY_WEB_FORM_LIMIT,
    /** The share and invite dialogs' form (up to 1000 shared paths), bytes. */
    shareFormLimit: e.FERRY_WEB_SHARE_FORM_LIMIT,
  }));

export type WebEnv = z.infer<typeof schema>;

/** Parses an environment; empty values count as unset, as for the engine. */
export function parseEnv(source: Record<string, string | undefined>): WebEnv {
  const present = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = schema.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new Error(`Invalid web environment:\n${lines.join("\n")}`);
  }
  return parsed.data;
}

/** Parsed once, when the server build is loaded: a bad value stops remix-serve at start-up. */
export const env: WebEnv = parseEnv(process.env);
