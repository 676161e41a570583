import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { e2eRunDir } from "./e2e-env";

/**
 * The e2e engine's installers folder (<FERRY_DATA_DIR>/installers; tests/support/e2e-server.ts
 * leaves FERRY_INSTALLERS_DIR unset). A fresh run has none, so the client bar is absent; a test that
 * needs installers puts them in and takes them out again (every test shares the one engine).
 */
export const installersDir = () => path.join(e2eRunDir(), "data", "installers");

/** Puts fake installers (e.g. "ferry-client.deb") into the folder the engine reads on every request. */
export function putInstallers(...names: string[]) {
  mkdirSync(installersDir(), { recursive: true });
  for (const name of names) writeFileSync(path.join(installersDir(), name), `fake installer ${name}\n`);
}

export function removeInstallers() {
  rmSync(installersDir(), { recursive: true, force: true });
}
