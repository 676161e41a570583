import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { BlobServiceClient } from "@azure/storage-blob";

/** Azurite's built-in account (Microsoft publishes this key for the emulator; it is no secret). */
export const AZURITE_ACCOUNT = { name: "devstoreaccount1", key: "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==" } as const;

export interface AzuriteServer {
  /** http://127.0.0.1:<port>/devstoreaccount1 */
  endpoint: string;
  /** A connection string for the built-in account (AccountName, AccountKey, BlobEndpoint). */
  connectionString: string;
  /** A container created at start. */
  container: string;
  /** A client of the built-in account, for looking at what the driver stored. */
  client: BlobServiceClient;
  stop(): Promise<void>;
}

/**
 * The child that runs Azurite's blob service alone (not queue or table), in memory. Its own process so
 * that its timers and sockets never hold a test worker, and so that it exits when the test process
 * goes away (its stdin closes). Flags: --skipApiVersionCheck (Azurite 3.37.0 refuses the API version
 * 2026-10-06 that @azure/storage-blob 12.34.0 sends), --disableTelemetry (Azurite would otherwise
 * try to send usage data out), --inMemoryPersistence (nothing on disk; its working directory is a
 * temporary one all the same, in case it writes there).
 */
const CHILD = `
process.argv = [process.argv[0], "azurite-blob", "--blobHost", "127.0.0.1", "--blobPort", "0", "--inMemoryPersistence", "--extentMemoryLimit", "2048", "--disableTelemetry", "--skipApiVersionCheck", "--silent"];
require(process.env.AZURITE_MAIN);
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
`;

/** Azurite's blob service (from npm) on a free loopback port, keeping its blobs in memory; one container made. */
export async function startAzurite(container = "ferry"): Promise<AzuriteServer> {
  const directory = await mkdtemp(path.join(os.tmpdir(), "ferry-azurite-"));
  const child: ChildProcess = spawn(process.execPath, ["-e", CHILD], {
    cwd: directory,
    env: { NODE_ENV: "test", PATH: process.env.PATH ?? "", AZURITE_MAIN: createRequire(import.meta.url).resolve("azurite/dist/src/blob/main.js") },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (data: Buffer) => {
      out += data.toString();
      const match = /successfully listens on http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (match) resolve(Number(match[1]));
    });
    child.once("exit", (code) => reject(new Error(`azurite exited (${code}): ${out}`)));
    child.once("error", reject);
  });
  // Azurite writes its start lines there; nothing more is read, but the pipe must not fill up.
  child.stdout!.resume();
  const endpoint = `http://127.0.0.1:${port}/${AZURITE_ACCOUNT.name}`;
  const connectionString = `DefaultEndpointsProtocol=http;AccountName=${AZURITE_ACCOUNT.name};AccountKey=${AZURITE_ACCOUNT.key};BlobEndpoint=${endpoint};`;
  const client = BlobServiceClient.fromConnectionString(connectionString);
  await client.getContainerClient(container).create();
  return {
    endpoint,
    connectionString,
    container,
    client,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = once(child, "exit");
        child.stdin!.end();
        await exited;
      }
      await rm(directory, { recursive: true, force: true });
    },
  };
}
