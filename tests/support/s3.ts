import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import S3rver from "s3rver";

/** s3rver's built-in account (any other key pair is refused with InvalidAccessKeyId). */
export const S3RVER_KEYS = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" } as const;

export interface S3Server {
  endpoint: string;
  bucket: string;
  directory: string;
  stop(): Promise<void>;
}

/** An S3-compatible server (s3rver, from npm) on a free loopback port, keeping its objects in a temporary directory. */
export async function startS3rver(bucket = "ferry"): Promise<S3Server> {
  const directory = await mkdtemp(path.join(os.tmpdir(), "ferry-s3rver-"));
  const server = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
  const { port } = await server.run();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    directory,
    stop: async () => {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
