import type * as z from "zod";
import { type SecuritySettings, securitySettings } from "../../contract/admin";
import { AUTHENTICATION_DEFAULTS, authenticationSettings } from "../../contract/authentication";
import { PERMISSION_DEFAULT } from "../../contract/permissions";
import {
  badPeriodIndex,
  GENERAL_DEFAULTS,
  generalSettings,
  PROTOCOL_DEFAULTS,
  protocolSettings,
  SITE_DEFAULTS,
  SPEED_DEFAULTS,
  speedSettings,
  siteSettings,
  transferSettings,
  type TransferSettings,
} from "../../contract/settings";
import { STATISTICS_DEFAULTS, statisticsSettings } from "../../contract/statistics";
import { LOG_DEFAULTS, logSettings } from "../../contract/logs";
import { P2P_DEFAULTS, p2pSettings } from "../../contract/p2p";
import { DEFAULT_WEAK_PASSWORDS } from "../../contract/validation";
import type { Db } from "../db/connect";
import { isUniqueViolation } from "../db/connect";
import { FerryError } from "../errors";

const groups = {
  security: {
    schema: securitySettings,
    defaults: { lockTimes: 5, lockMinutes: 3, allowUserSetPassword: true, weakPasswords: DEFAULT_WEAK_PASSWORDS, defaultPermission: PERMISSION_DEFAULT, fileFormatMode: 0, fileFormats: "" } satisfies SecuritySettings,
  },
  site: { schema: siteSettings, defaults: SITE_DEFAULTS },
  /** The way users sign in (server/authentication/, docs/authentication.md). */
  authentication: { schema: authenticationSettings, defaults: AUTHENTICATION_DEFAULTS },
  /** The statistics period (server/statistics/, docs/admin-api.md "Statistics"). */
  statistics: { schema: statisticsSettings, defaults: STATISTICS_DEFAULTS },
  /** Retention days of the transfer and operation logs (server/logs/, docs/admin-api.md "Logs"). */
  logs: { schema: logSettings, defaults: LOG_DEFAULTS },
  transfer: {
    schema: transferSettings,
    defaults: {
      host: "",
      proxyPort: 0,
      enableFTPS: false,
      tcpEnable: true,
      tcpDelay: 0,
      cTransEncryptSwitch: false,
      cHashVerifySwitch: true,
      autoUpdateSwitch: false,
      syncSwitch: false,
      emailAccount: "",
      certSelect: 0,
      tcpFileSizeLimitKB: 100 * 1024 * 1024,
    } satisfies TransferSettings,
  },
  /** The console's General settings, common part (docs/admin-api.md, "Settings"). */
  general: { schema: generalSettings, defaults: GENERAL_DEFAULTS },
  /** Server-wide speeds and speed periods (server/speed/, docs/file-server.md "Speed periods"). */
  speed: { schema: speedSettings, defaults: SPEED_DEFAULTS },
  /** The web uploader's parallel uploads and part size (Transfer protocol page). */
  protocol: { schema: protocolSettings, defaults: PROTOCOL_DEFAULTS },
  /** Point to point (server/p2p/, docs/p2p.md "Settings"). */
  p2p: { schema: p2pSettings, defaults: P2P_DEFAULTS },
};

type Groups = typeof groups;
export type SettingsGroup = keyof Groups;
type ValueOf<G extends SettingsGroup> = z.infer<Groups[G]["schema"]>;

/**
 * Settings live in the database (one JSON row per group) so every engine instance reads the same;
 * stored values are merged over the defaults and validated, so a new field never breaks an old row.
 */
export function createSettings(db: Db) {
  const k = db.kysely;
  const listeners = new Set<(group: SettingsGroup) => void>();
  /** Rules across fields that a group's schema cannot say with a field's own message. */
  const checks: { [G in SettingsGroup]?: (value: ValueOf<G>) => void } = {
    speed: (value) => {
      const index = badPeriodIndex(value.periods);
      if (index >= 0) throw new FerryError("SpeedPeriodOrder", { index }, { number: index + 1 });
    },
  };
  return {
    /** `listener` hears every group this process changes (the speed limits follow at once); returns the unsubscribe. */
    onChange(listener: (group: SettingsGroup) => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async get<G extends SettingsGroup>(group: G): Promise<ValueOf<G>> {
      const row = await k.selectFrom("settings").select("value").where("key", "=", group).executeTakeFirst();
      const stored = row ? (JSON.parse(row.value) as object) : {};
      const { schema, defaults } = groups[group];
      const merged: Record<string, unknown> = { ...defaults, ...stored };
      const parsed = schema.safeParse(merged);
      if (parsed.success) return parsed.data as ValueOf<G>;
      // A value stored before a rule tightened (a javascript: link, say) falls back to its default alone.
      for (const issue of parsed.error.issues) {
        const key = issue.path[0];
        if (typeof key === "string" && key in defaults) merged[key] = defaults[key as keyof typeof defaults];
      }
      const again = schema.safeParse(merged);
      return (again.success ? again.data : defaults) as ValueOf<G>;
    },
    async update<G extends SettingsGroup>(group: G, patch: Partial<ValueOf<G>>): Promise<ValueOf<G>> {
      const next = groups[group].schema.parse({ ...(await this.get(group)), ...patch }) as ValueOf<G>;
      (checks[group] as ((value: ValueOf<G>) => void) | undefined)?.(next);
      const value = JSON.stringify(next);
      const updated = await k.updateTable("settings").set({ value }).where("key", "=", group).executeTakeFirst();
      if (Number(updated.numUpdatedRows) === 0) {
        try {
          await k.insertInto("settings").values({ key: group, value }).execute();
        } catch (error) {
          if (!isUniqueViolation(error)) throw error;
          await k.updateTable("settings").set({ value }).where("key", "=", group).execute();
        }
      }
      for (const listener of listeners) listener(group);
      return next;
    },
  };
}

export type Settings = ReturnType<typeof createSettings>;
