import { rm } from "node:fs/promises";

/**
 * Removes the run's directory (engine data, helper state). Playwright runs this before it stops the
 * webServers, so the engine may still hold its SQLite file open; on Linux that is harmless, and the
 * engine launcher removes the directory again when it exits. This covers the launcher being killed
 * before it could clean up.
 */
export default async function globalTeardown() {
  const runDir = process.env.FERRY_E2E_RUN_DIR;
  if (runDir) await rm(runDir, { recursive: true, force: true });
}
