import { describe } from "vitest";
import { type AzureStorageConfig, createAzureStorage, MIN_BLOCK } from "../../server/storage/azure";
import type { Storage } from "../../server/storage/storage";
import { type AzuriteServer, startAzurite } from "../support/azurite";
import { storageConformance } from "../support/storage-conformance";

// The storage conformance suite (tests/support/storage-conformance.ts) on the Azure Blob driver, against
// Azurite started here; each test gets its own blob path in one container ("t<n>/u", its sibling "t<n>/u2").
let server: AzuriteServer;
let run = 0;
/** Small blocks, so that a few MiB already span several staged blocks. */
const BLOCK = 16 * MIN_BLOCK;

/** Every committed blob under `under`. */
async function keysUnder(under: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const item of server.client.getContainerClient(server.container).listBlobsFlat({ prefix: under })) keys.push(item.name);
  return keys;
}

/** The keys of what the storage shows: each listed file, and each listed folder's marker. */
async function shownKeys(storage: Storage, under: string, dir = "/", into = new Set<string>()): Promise<Set<string>> {
  for (const entry of await storage.list(dir)) {
    const rel = `${dir === "/" ? "" : dir}/${entry.name}`;
    if (entry.type === "file") into.add(under + rel.slice(1));
    else {
      into.add(`${under}${rel.slice(1)}/`);
      await shownKeys(storage, under, rel, into);
    }
  }
  return into;
}

describe("storage conformance: Azure Blob (Azurite)", () => {
  storageConformance({
    largeWrite: 2 * BLOCK + 1234,
    listsFolderTimes: false,
    async start() {
      server = await startAzurite();
    },
    async stop() {
      await server?.stop();
    },
    async create() {
      run++;
      const config = (root: string): AzureStorageConfig => ({ connectionString: server.connectionString, container: server.container, path: `t${run}/${root}` });
      const options = { blockSize: BLOCK };
      const storage = createAzureStorage(config("u"), options);
      const under = `t${run}/u/`;
      return {
        storage,
        sibling: createAzureStorage(config("u2"), options),
        restarted: () => createAzureStorage(config("u"), options),
        child: () => ({ module: "server/storage/azure.ts", factory: "createAzureStorage", args: [config("u"), options] }),
        // Committed blobs under the blob path that the storage does not show. Staged blocks of an aborted write
        // are not blobs until committed (they expire after 7 days, or cleanupStale drops them): storage-azure.test.ts
        // looks at them.
        leftovers: async () => {
          const shown = await shownKeys(storage, under);
          return (await keysUnder(under)).filter((key) => !shown.has(key));
        },
      };
    },
  });
});
