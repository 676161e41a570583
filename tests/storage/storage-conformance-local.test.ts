import { mkdir, mkdtemp, readdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe } from "vitest";
import { createLocalStorage } from "../../server/storage/local";
import { STAGING_NAME } from "../../server/storage/paths";
import { storageConformance } from "../support/storage-conformance";

// The storage conformance suite (tests/support/storage-conformance.ts) on the local-directory driver.
let dir: string;

describe("storage conformance: local", () => {
  storageConformance({
    largeWrite: 2 * 1024 * 1024 + 3,
    async create() {
      dir = await mkdtemp(path.join(os.tmpdir(), "ferry-conformance-"));
      const root = path.join(dir, "u");
      await mkdir(root);
      await mkdir(path.join(dir, "u2"));
      return {
        storage: createLocalStorage(root),
        sibling: createLocalStorage(path.join(dir, "u2")),
        restarted: () => createLocalStorage(root),
        leftovers: () => readdir(path.join(root, STAGING_NAME)).catch(() => [] as string[]),
      };
    },
    destroy: () => rm(dir, { recursive: true, force: true }),
  });
});
