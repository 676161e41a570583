import { p2pHistoryPage, p2pHistoryQuery, p2pLivePage, p2pLiveQuery, p2pSettings, p2pSettingsBody, p2pStatusAnswer, p2pStatusQuery } from "../../contract/p2p";
import { route } from "../http/route";
import type { Settings } from "../settings/service";
import type { P2p } from "./service";

/** Point to point's REST API (docs/p2p.md, "REST"): the users' status look-up and the administrator's lists and settings. */
export function p2pRoutes(p2p: P2p, settings: Settings) {
  return [
    route({
      method: "GET",
      url: "/api/transmission/ptp/status",
      tag: "user",
      summary:
        'Whether a device id can take an offer (spec section 7): ?data={"id":"482913557"} or ?id=. result 0 ready (online: its receiver page is open), 33 no such device (also P2P off, a locked account), 35 busy with another transfer. 60 look-ups a minute per user, then 4705.',
      auth: "user",
      query: p2pStatusQuery,
      response: p2pStatusAnswer,
      handler: ({ query, auth }) => p2p.status(auth!.user.id, query.id),
    }),
    route({
      method: "GET",
      url: "/api/transmission/ptp/current",
      tag: "admin",
      summary: "Point-to-point transfers not ended (offered, held, accepted, running), newest first: both parties' accounts, device ids and addresses, names, sizes, bytes done, speed, path, files in flight; search by account or device id; paged.",
      auth: "admin",
      query: p2pLiveQuery,
      response: p2pLivePage,
      handler: ({ query }) => p2p.live(query),
    }),
    route({
      method: "GET",
      url: "/api/logs/transmission/ptp",
      tag: "admin",
      summary: "Point-to-point transfers that ended (done, failed, cancelled, declined, expired), by creation time (newest first unless order=asc); search by account or device id, status, from–to (unix ms); paged.",
      auth: "admin",
      query: p2pHistoryQuery,
      response: p2pHistoryPage,
      handler: ({ query }) => p2p.history(query),
    }),
    route({ method: "GET", url: "/api/admin/p2p/settings", tag: "admin", summary: "Point-to-point settings: on/off, direct, relay, hand-over hours, largest transfer, STUN/TURN servers.", auth: "admin", response: p2pSettings, handler: () => settings.get("p2p") }),
    route({
      method: "PUT",
      url: "/api/admin/p2p/settings",
      tag: "admin",
      summary: "Change point-to-point settings (any of enabled, direct, relay, holdHours 0–8760, maxTransferBytes (0 no limit), iceServers); the engine enforces them at once.",
      auth: "admin",
      body: p2pSettingsBody,
      response: p2pSettings,
      handler: ({ body }) => settings.update("p2p", body),
    }),
  ];
}
