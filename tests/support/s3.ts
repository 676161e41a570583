import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";

/** s3rver's built-in account (any other key pair is refused with InvalidAccessKeyId). */
export const S3RVER_KEYS = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" } as const;

export interface S3Server {
  endpoint: string;
  bucket: string;
  /** Where s3rver keeps the objects (one file per object, "<key>._S3rver_object"). */
  directory: string;
  stop(): Promise<void>;
}

/**
 * The child that runs s3rver. Its own process because s3rver 3.7.1 needs OpenSSL's legacy provider
 * (its ListObjectsV2 continuation tokens are DES-encrypted, which Node 17+ refuses by default: any
 * listing of more than 1,000 keys failed with InternalError) and because it throws uncaught errors
 * for keys its file store cannot hold (ENAMETOOLONG), which would take a test worker down with it.
 * It exits when the test process goes away (its stdin closes).
 */
const CHILD = `
const S3rver = require(process.env.S3RVER_MODULE);
const server = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory: process.env.S3RVER_DIR, configureBuckets: [{ name: process.env.S3RVER_BUCKET }] });
process.on("uncaughtException", (err) => process.stderr.write("s3rver: " + err.message + "\\n"));
server.run().then((address) => process.stdout.write(JSON.stringify({ port: address.port }) + "\\n"));
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
`;

/** An S3-compatible server (s3rver, from npm) on a free loopback port, keeping its objects in a temporary directory. */
export async function startS3rver(bucket = "ferry"): Promise<S3Server> {
  const directory = await mkdtemp(path.join(os.tmpdir(), "ferry-s3rver-"));
  const child: ChildProcess = spawn(process.execPath, ["--openssl-legacy-provider", "-e", CHILD], {
    env: { NODE_ENV: "test", PATH: process.env.PATH ?? "", S3RVER_MODULE: createRequire(import.meta.url).resolve("s3rver"), S3RVER_DIR: directory, S3RVER_BUCKET: bucket },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (data: Buffer) => {
      out += data.toString();
      const line = out.split("\n")[0];
      if (out.includes("\n") && line) resolve((JSON.parse(line) as { port: number }).port);
    });
    child.once("exit", (code) => reject(new Error(`s3rver exited (${code})`)));
    child.once("error", reject);
  });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    directory,
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
