import * as z from "zod";
import type { Tls } from "../tls/service";
import { serverInfo, siteInfo } from "../../contract/site";
import type { Clock } from "../clock";
import type { Config } from "../config";
import type { Db } from "../db/connect";
import { route } from "../http/route";
import { countOnlineClients } from "../fileserver/clients";
import { createInstallers } from "../installers/service";
import type { Settings } from "../settings/service";
import type { SiteDesignService } from "../site-design/service";
import { VERSION } from "../version";

export function siteRoutes(config: Config, settings: Settings, db: Db, clock: Clock, tls: Pick<Tls, "plainDisabled"> | undefined, design: SiteDesignService) {
  // The folder is read at each request: an installer the operator drops in is offered at once.
  const installers = createInstallers(config.installersDir);
  return [
    route({
      method: "GET",
      url: "/api/website/info",
      tag: "site",
      summary: "Site branding and edition, for the sign-in page and the shell (public).",
      auth: "public",
      response: siteInfo,
      handler: async () => {
        // Branding and images only in the enterprise edition (docs/admin-api.md, "Site design").
        const [s, branding, edition] = await Promise.all([settings.get("site"), design.siteInfo(), design.edition()]);
        return {
          ...branding,
          soft_version: edition,
          urlName: s.urlName,
          certSelect: 0,
          isEnVersion: false,
          clientText: s.clientText,
        };
      },
    }),
    route({
      method: "GET",
      url: "/api/service/info",
      tag: "site",
      summary: "File-server ports, switches and limits for the clients: a user's access token or a share-link visitor's token (then without the server's mail account).",
      auth: "userOrVisitor",
      response: z.object({ server: serverInfo }),
      handler: async ({ visitor }) => {
        const [t, clientOnline, available, protocol, speed, general] = await Promise.all([
          settings.get("transfer"),
          countOnlineClients(db, clock.now()),
          installers.available(),
          settings.get("protocol"),
          settings.get("speed"),
          settings.get("general"),
        ]);
        return {
          server: {
            client_online: clientOnline,
            apiport: config.apiPort,
            proxyPort: t.proxyPort,
            // 0 while non-TLS connections are disabled: clients go to ssl_port (docs/file-server.md, "TLS").
            no_ssl_port: tls?.plainDisabled() ? 0 : config.filePort,
            ssl_port: config.fileTlsPort,
            host: t.host,
            enableFTPS: t.enableFTPS,
            tcpEnable: t.tcpEnable,
            tcpDelay: t.tcpDelay,
            cTransEncryptSwitch: t.cTransEncryptSwitch,
            cHashVerifySwitch: t.cHashVerifySwitch,
            autoUpdateSwitch: t.autoUpdateSwitch,
            syncSwitch: t.syncSwitch,
            emailAccount: visitor ? "" : t.emailAccount,
            certSelect: t.certSelect,
            version: VERSION,
            TCPFileSizeLimit: t.tcpFileSizeLimitKB,
            installers: available,
            parallelUploads: protocol.parallelUploads,
            uploadPartMB: protocol.uploadPartMB,
            clientPromptMB: speed.clientPromptMB,
            bindFirstDevice: general.bindFirstDevice,
          },
        };
      },
    }),
    route({
      method: "GET",
      url: "/api/health",
      tag: "site",
      summary: "Liveness and database reachability.",
      auth: "public",
      response: z.object({ status: z.literal("ok"), version: z.string(), database: z.string() }),
      handler: async () => {
        await db.kysely.selectFrom("settings").select("key").limit(1).execute();
        return { status: "ok" as const, version: VERSION, database: db.dialect };
      },
    }),
  ];
}
