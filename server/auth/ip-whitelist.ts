import { ipAllowed } from "../../contract/ip-whitelist";
import type { Db } from "../db/connect";
import { fail } from "../errors";

/**
 * Refuses a sign-in from outside the user's IP login whitelist (1091), on every path that signs in:
 * the REST sign-in, the token refresh and the file server's socket login. `ip` is the client's
 * address as server/http/client-address.ts reads it (trusted proxies, the web's signed address).
 */
export function requireWhitelisted(whitelist: string, ip: string | null): void {
  if (!ipAllowed(whitelist, ip)) fail("IpNotInWhitelist", { ip: ip ?? "" });
}

/** The same check for a user known by id (a refresh token, a socket's websocket token). */
export async function requireWhitelistedUser(db: Db, userId: number, ip: string | null): Promise<void> {
  const row = await db.kysely.selectFrom("users").select("ip_whitelist").where("id", "=", userId).executeTakeFirst();
  if (row) requireWhitelisted(row.ip_whitelist, ip);
}
