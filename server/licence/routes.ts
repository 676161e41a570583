import { type LicenceState, licenceState, licenceUploadBody } from "../../contract/licence";
import type { Db } from "../db/connect";
import { route } from "../http/route";
import type { Licence } from "./service";

/** The licence (docs/licence.md): what is in effect, upload, removal. Every route needs the administrator's token. */
export function licenceRoutes(licence: Licence, db: Db) {
  async function state(): Promise<LicenceState> {
    const [e, clientLimit, userLimit, preview, row] = await Promise.all([
      licence.effective(),
      licence.clientLimit(),
      licence.userLimit(),
      licence.previewAllowed(),
      db.kysely
        .selectFrom("users")
        .select((eb) => eb.fn.countAll<number | string>().as("n"))
        .where("role", "=", "user")
        .executeTakeFirst(),
    ]);
    return {
      edition: e.edition,
      source: e.source,
      status: e.source === "licence" ? "activated" : "inactivated",
      licence: e.licence,
      activatedAt: e.activatedAt,
      problem: e.problem,
      userLimit,
      userCount: Number(row?.n ?? 0),
      clientLimit,
      siteDesign: e.edition === "enterprise",
      preview,
    };
  }
  const base = "/api/admin/licence";
  return [
    route({ method: "GET", url: base, tag: "admin", summary: "The edition in effect, the stored licence's terms, and why it is not in effect (1092 expired, 1093 invalid).", auth: "admin", response: licenceState, handler: state }),
    route({
      method: "POST",
      url: base,
      tag: "admin",
      summary: "Upload a licence file's text ({ licence }); it takes effect at once. 1093 invalid, tampered or signed with another key; 1092 expired. Nothing changes when refused.",
      auth: "admin",
      body: licenceUploadBody,
      response: licenceState,
      handler: async ({ body }) => {
        await licence.activate(body.licence);
        return state();
      },
    }),
    route({
      method: "DELETE",
      url: base,
      tag: "admin",
      summary: "Remove the licence: the engine runs as the free edition (or FERRY_EDITION's override) at once.",
      auth: "admin",
      response: licenceState,
      handler: async () => {
        await licence.remove();
        return state();
      },
    }),
  ];
}
