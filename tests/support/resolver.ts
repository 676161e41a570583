import type { Resolver } from "../../server/storage/endpoint-guard";

/** A resolver for a driver's guarded lookup that answers `address` for `name` (nothing for others) and records the names asked. */
export function resolving(name: string, address: string): { asked: string[]; resolve: Resolver } {
  const asked: string[] = [];
  const resolve: Resolver = async (hostname) => {
    asked.push(hostname);
    return hostname === name ? [{ address, family: 4 }] : [];
  };
  return { asked, resolve };
}
