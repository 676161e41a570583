// `npm run build:engine`: bundles the engine (server/main.ts) and the operator CLI
// (server/cli/main.ts) into build/engine/*.js, so production runs them with plain `node`.
// Why: under `node --import tsx` every module is compiled in the process at start and tsx's
// loader, esbuild service and transform cache stay resident (tens of MB of RSS that a user pays
// for nothing); one pre-built file starts faster and holds only the engine.
//
// Every package stays external (`packages: "external"`): better-sqlite3's native addon,
// hash-wasm's wasm, @tus and archiver load from node_modules exactly as under tsx, and the bundle
// holds only our own code (server/ and contract/). Plain Node ESM so `npm start` can import it.
import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export const ENGINE_BUILD_DIR = path.join(root, "build", "engine");
/** The built engine (`node build/engine/main.js`) and CLI (`node build/engine/ferry.js`). */
export const ENGINE_ENTRY = path.join(ENGINE_BUILD_DIR, "main.js");
export const CLI_ENTRY = path.join(ENGINE_BUILD_DIR, "ferry.js");
/**
 * Node options the engine runs with in production (`npm start`, and the bench):
 * - A young generation of 2 MiB semi-spaces instead of V8's default 16 MiB: the engine's garbage is
 *   small and short-lived (promises, headers), so scavenges stay cheap, and RSS stays ~20 MB lower
 *   at idle and under 60 transfers (docs/bench.md, "Memory").
 * - An old generation that may reach 48 MB before its first full collection. Without it V8 kept
 *   the limit barely above the ~22 MB the engine holds, and an upload's few promoted objects set
 *   off a full collection every ~40 MiB: ~75 per GiB, ~1.5 CPU-s of collector threads and main
 *   thread per GiB received, more than the receiving itself. 32 MB did not stop it; 64 MB did, but
 *   raised the peak RSS under load by ~25 MB (docs/bench.md, "Upload path, third pass").
 */
export const ENGINE_NODE_OPTIONS = (process.env.FERRY_ENGINE_NODE_OPTIONS ?? "--max-semi-space-size=2 --initial-old-space-size=48").split(" ").filter(Boolean);

/** What goes into the bundle; package.json too, since server/version.ts reads the version from it. */
const INPUTS = ["server", "contract", "package.json", "scripts/build-engine.mjs"];
/** Tests next to the code are not bundled. */
const NOT_BUILT = /\.test\.[cm]?[jt]sx?$/;

function newestMtime(entry) {
  const info = statSync(entry, { throwIfNoEntry: false });
  if (!info) return 0;
  if (!info.isDirectory()) return NOT_BUILT.test(entry) ? 0 : info.mtimeMs;
  let newest = 0;
  for (const name of readdirSync(entry)) newest = Math.max(newest, newestMtime(path.join(entry, name)));
  return newest;
}

/** Why the engine build must be (re)made, or null when it is current. */
export function engineBuildStale() {
  const builtAt = Math.min(...[ENGINE_ENTRY, CLI_ENTRY].map((file) => statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0));
  if (builtAt === 0) return "no engine build yet (build/engine)";
  const newest = Math.max(...INPUTS.map((input) => newestMtime(path.join(root, input))));
  return newest > builtAt ? "engine sources changed since the last build" : null;
}

/** `outdir` is for tests, which build elsewhere so they never race a running build/engine. */
export async function buildEngine(outdir = ENGINE_BUILD_DIR) {
  // Imported here, not at the top: `npm start` loads this file to check staleness without esbuild's start-up cost.
  const esbuild = await import("esbuild");
  await esbuild.build({
    absWorkingDir: root,
    entryPoints: { main: "server/main.ts", ferry: "server/cli/main.ts" },
    outdir,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    // Not minified: stack traces in operators' logs stay readable without a source map.
    minify: false,
    sourcemap: false,
    logLevel: "warning",
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const started = Date.now();
  buildEngine().then(
    () => process.stdout.write(`engine built in ${Date.now() - started} ms: ${path.relative(root, ENGINE_ENTRY)}, ${path.relative(root, CLI_ENTRY)}\n`),
    (error) => {
      process.stderr.write(`engine build failed: ${error?.message ?? error}\n`);
      process.exit(1);
    },
  );
}
