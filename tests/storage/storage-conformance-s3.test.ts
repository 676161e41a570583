import { describe } from "vitest";
import { createS3Storage, MIN_SLICE, type S3StorageConfig } from "../../server/storage/s3";
import { S3RVER_KEYS, startS3rver, type S3Server } from "../support/s3";
import { storageConformance } from "../support/storage-conformance";

// The storage conformance suite (tests/support/storage-conformance.ts) on the S3 driver, against
// s3rver started here; each test gets its own prefix in one bucket ("t<n>/u", its sibling "t<n>/u2").
let server: S3Server;
let run = 0;

describe("storage conformance: S3 (s3rver)", () => {
  storageConformance({
    largeWrite: 2 * MIN_SLICE + 1234,
    longestName: 200, // s3rver's file store: "<name>._S3rver_metadata.json" must fit in 255 bytes
    async start() {
      server = await startS3rver();
    },
    stop: () => server.stop(),
    async create() {
      run++;
      const config = (root: string): S3StorageConfig => ({ endpoint: server.endpoint, bucket: server.bucket, ...S3RVER_KEYS, path: `t${run}/${root}`, sliceSize: MIN_SLICE });
      return {
        storage: createS3Storage(config("u")),
        sibling: createS3Storage(config("u2")),
        restarted: () => createS3Storage(config("u")),
      };
    },
  });
});
