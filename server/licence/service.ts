import type { KeyObject } from "node:crypto";
import type { LicencePayload, LicenceState } from "../../contract/licence";
import { type Clock, toSeconds } from "../clock";
import type { Config, Edition } from "../config";
import type { Db } from "../db/connect";
import { isUniqueViolation } from "../db/connect";
import { FerryError } from "../errors";
import { FREE_CLIENT_LIMIT } from "../fileserver/clients";
import { BUILD_LICENCE_PUBLIC_KEYS } from "./public-key";
import { ed25519PublicKey, type Verified, verifyLicence } from "./verify";

/** The settings row the uploaded licence is kept in (one per installation, shared by every engine instance). */
const ROW_KEY = "licence";
/** How long an instance trusts its copy of the row; a change made on this instance is seen at once. */
const ROW_CACHE_MS = 5000;

interface Stored {
  text: string;
  /** Unix seconds of the upload. */
  activatedAt: number;
}

/** The edition in effect and what decided it (docs/licence.md, "Which edition runs"). */
export interface Effective {
  edition: Edition;
  source: LicenceState["source"];
  licence: LicencePayload | null;
  activatedAt: number | null;
  problem: { code: 1092 | 1093; reason: string } | null;
}

export function createLicence(deps: { db: Db; clock: Clock; config: Pick<Config, "edition" | "licencePublicKey" | "preview"> }) {
  const { db, clock, config } = deps;
  const k = db.kysely;
  const keys: KeyObject[] = BUILD_LICENCE_PUBLIC_KEYS.map(ed25519PublicKey);
  if (config.licencePublicKey) keys.push(ed25519PublicKey(config.licencePublicKey));

  let cached: { stored: Stored | null; at: number } | null = null;
  // Signature and shape do not change for a given text: checked once, the expiry at every use.
  let checked: { text: string; result: Verified } | null = null;

  async function stored(): Promise<Stored | null> {
    if (cached && performance.now() - cached.at < ROW_CACHE_MS) return cached.stored;
    const row = await k.selectFrom("settings").select("value").where("key", "=", ROW_KEY).executeTakeFirst();
    let value: Stored | null = null;
    if (row) {
      try {
        const parsed = JSON.parse(row.value) as Partial<Stored>;
        if (typeof parsed.text === "string" && typeof parsed.activatedAt === "number") value = { text: parsed.text, activatedAt: parsed.activatedAt };
      } catch {
        value = { text: "", activatedAt: 0 };
      }
    }
    cached = { stored: value, at: performance.now() };
    return value;
  }

  function check(text: string): Verified {
    const now = toSeconds(clock.now());
    if (checked?.text !== text) checked = { text, result: verifyLicence(text, keys, Number.NEGATIVE_INFINITY) };
    const result = checked.result;
    if (result.ok && result.payload.expiresAt !== null && result.payload.expiresAt <= now) return { ok: false, code: 1092, reason: "expired", payload: result.payload };
    return result;
  }

  /** Without a valid licence: FERRY_EDITION, which is free unless a developer set it. */
  const unlicensed = (): Pick<Effective, "edition" | "source"> => ({ edition: config.edition, source: config.edition === "free" ? "default" : "environment" });

  async function effective(): Promise<Effective> {
    const s = await stored();
    if (!s) return { ...unlicensed(), licence: null, activatedAt: null, problem: null };
    const result = check(s.text);
    if (result.ok) return { edition: result.payload.edition, source: "licence", licence: result.payload, activatedAt: s.activatedAt, problem: null };
    return { ...unlicensed(), licence: result.payload, activatedAt: s.activatedAt, problem: { code: result.code, reason: result.reason } };
  }

  async function write(value: string | null) {
    if (value === null) await k.deleteFrom("settings").where("key", "=", ROW_KEY).execute();
    else {
      const updated = await k.updateTable("settings").set({ value }).where("key", "=", ROW_KEY).executeTakeFirst();
      if (Number(updated.numUpdatedRows) === 0) {
        try {
          await k.insertInto("settings").values({ key: ROW_KEY, value }).execute();
        } catch (error) {
          if (!isUniqueViolation(error)) throw error;
          await k.updateTable("settings").set({ value }).where("key", "=", ROW_KEY).execute();
        }
      }
    }
    cached = null;
  }

  return {
    effective,
    async edition(): Promise<Edition> {
      return (await effective()).edition;
    },
    /** Accounts allowed: the valid licence's user limit; null (unlimited) without one. */
    async userLimit(): Promise<number | null> {
      const e = await effective();
      return e.source === "licence" ? (e.licence?.userLimit ?? null) : null;
    },
    /** Desktop clients online at once: 3 in the free edition, unlimited in the others. */
    async clientLimit(): Promise<number | null> {
      return (await this.edition()) === "free" ? FREE_CLIENT_LIMIT : null;
    },
    /** Inline preview: FERRY_PREVIEW `on`, or `edition` (the default) in the enterprise edition. */
    async previewAllowed(): Promise<boolean> {
      return config.preview === "on" || (config.preview === "edition" && (await this.edition()) === "enterprise");
    },
    /** Site customisation (spec section 1): enterprise only, refused with 4460 otherwise. */
    async requireSiteDesign(): Promise<void> {
      if ((await this.edition()) !== "enterprise") throw new FerryError("SiteDesignEnterprise");
    },
    /** Checks and stores an uploaded licence; an invalid or expired one is refused (1093, 1092) and nothing changes. */
    async activate(text: string): Promise<Effective> {
      const result = check(text.trim());
      if (!result.ok) throw new FerryError(result.code === 1092 ? "LicenseExpired" : "LicenseInvalid", { reason: result.reason });
      await write(JSON.stringify({ text: text.trim(), activatedAt: toSeconds(clock.now()) } satisfies Stored));
      return effective();
    },
    async remove(): Promise<Effective> {
      await write(null);
      return effective();
    },
  };
}

export type Licence = ReturnType<typeof createLicence>;
