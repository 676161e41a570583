import type { NoticeState } from "../components/ui/notice-bar";
import { compareVersion } from "../utils/format";
import type { LocalClientState } from "./probe.client";
import { LOCAL_PROTOCOL_VERSION } from "./protocol";

/** The file server as the notice bar sees it: "down" once it dropped, or never came up in time. */
export type FileServerHealth = "pending" | "open" | "down";

export interface NoticeInputs {
  /** null before hydration: nothing is known yet, so nothing is shown. */
  local: LocalClientState | null;
  fileServer: FileServerHealth;
  /** The user asked to start the client and it has not answered yet. */
  starting: boolean;
  /**
   * Whether to invite the user to start the client at all: the administrator has an installer to
   * offer and the user has not dismissed the invitation in this browser.
   */
  invite: boolean;
  minVersion: string;
}

/** True when the client must be upgraded before the page may use it (spec section 9: dotted versions, part by part). */
export function isLowVersion(client: { protocol: string; version: string }, minVersion: string): boolean {
  return compareVersion(client.protocol, LOCAL_PROTOCOL_VERSION) < 0 || compareVersion(client.version, minVersion) < 0;
}

/**
 * The one state the notice bar shows (spec section 2). A connected client speaks for itself (too old,
 * or an update waiting); without one, a lost file server matters most, then a start in progress, and
 * otherwise the page invites the user to start the client — when there is a client to offer and the
 * user has not dismissed the invitation.
 */
export function selectNoticeState({ local, fileServer, starting, invite, minVersion }: NoticeInputs): NoticeState | null {
  if (!local) return null;
  if (local.status === "connected") {
    if (isLowVersion(local, minVersion)) return "low-version";
    if (local.latest && compareVersion(local.latest, local.version) > 0) return "update";
    return null;
  }
  if (fileServer === "down") return "disconnect";
  if (!invite) return null;
  return starting ? "starting" : "start-client";
}
