import * as z from "zod";
import { p2pSettings, type P2pSettings } from "../../../contract/p2p";

/**
 * The Point to point settings form (routes/admin.transfer.p2p.tsx, tab Settings): one zod schema,
 * used by conform in the browser and by the action, built on the contract's p2pSettings (its bounds
 * and its STUN/TURN URL rule); messages are keys of app/i18n/messages/admin-p2p.ts. The largest
 * transfer is typed in MiB (0 = no limit), the servers one URL a line. The engine checks again.
 */
const onOff = z.literal("on").optional();
const MIB = 1024 * 1024;
const shape = p2pSettings.shape;
const HOLD_MAX = shape.holdHours.maxValue ?? 24 * 365;
const MAX_MIB = Math.floor((shape.maxTransferBytes.maxValue ?? Number.MAX_SAFE_INTEGER) / MIB);
const ICE_MAX = 10;

const whole = (message: string, min: number, max: number) => z.number({ error: message }).int(message).min(min, message).max(max, message);

/** The text area's lines, trimmed, blank ones left out. */
export const iceLines = (text: string) =>
  text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "");

export const p2pFormSchema = z.object({
  intent: z.literal("p2p"),
  enabled: onOff,
  direct: onOff,
  relay: onOff,
  holdHours: whole("admin.p2p.error.hold", 0, HOLD_MAX),
  maxTransferMiB: whole("admin.p2p.error.size", 0, MAX_MIB),
  iceServers: z
    .string()
    .max(ICE_MAX * 260, "admin.p2p.error.ice-count")
    .optional()
    .default("")
    .superRefine((text, ctx) => {
      const lines = iceLines(text);
      if (lines.length > ICE_MAX) ctx.addIssue({ code: "custom", message: "admin.p2p.error.ice-count" });
      else if (lines.some((line) => !shape.iceServers.element.safeParse(line).success)) ctx.addIssue({ code: "custom", message: "admin.p2p.error.ice" });
    }),
});
export type P2pFormValue = z.output<typeof p2pFormSchema>;

/** The form's value as the engine's settings (PUT /api/admin/p2p/settings). */
export function settingsOfForm(v: P2pFormValue): P2pSettings {
  return {
    enabled: v.enabled === "on",
    direct: v.direct === "on",
    relay: v.relay === "on",
    holdHours: v.holdHours,
    maxTransferBytes: v.maxTransferMiB * MIB,
    iceServers: iceLines(v.iceServers),
  };
}

/** The stored settings as the form's default values (a size that is not whole MiB is shown rounded up). */
export function formOfSettings(s: P2pSettings) {
  return {
    enabled: s.enabled ? "on" : undefined,
    direct: s.direct ? "on" : undefined,
    relay: s.relay ? "on" : undefined,
    holdHours: String(s.holdHours),
    maxTransferMiB: String(Math.ceil(s.maxTransferBytes / MIB)),
    iceServers: s.iceServers.join("\n"),
  };
}
