import { spawn } from "node:child_process";
import { ConfigError, loadConfig } from "./config";
import { type Engine, startEngine } from "./engine";
import { firstStartBanner } from "./services";

/**
 * Exit codes of the administrator's dashboard actions, which scripts/start.mjs (ENGINE_EXIT there)
 * acts on: restart → started again at once; shutdown → Ferry stops, the web too.
 */
export const ENGINE_EXIT = { restart: 75, shutdown: 76 } as const;

/**
 * Restart and shutdown from the dashboard (docs/admin-api.md, "Dashboard"). The engine first stops
 * (listeners closed, database closed). Under `npm start` (FERRY_SUPERVISED=1) the supervisor starts
 * it again; run alone (`npm run engine`, a service manager without it), the engine starts its
 * successor itself with the same Node options and arguments, detached, and exits.
 */
function leave(engine: () => Engine | undefined, how: keyof typeof ENGINE_EXIT) {
  let leaving = false;
  return () => {
    if (leaving) return;
    leaving = true;
    const supervised = process.env.FERRY_SUPERVISED === "1";
    const stopped = engine()?.stop() ?? Promise.resolve();
    stopped.then(
      () => {
        if (supervised) process.exit(ENGINE_EXIT[how]);
        if (how === "restart") spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], { stdio: "inherit", detached: true, env: process.env }).unref();
        process.exit(0);
      },
      () => process.exit(1),
    );
  };
}

/** `npm run engine`: the engine alone, configured from the environment (README, .env.example). */
async function main() {
  const config = loadConfig();
  const engine: Engine = await startEngine(config, undefined, { restart: leave(() => engine, "restart"), shutdown: leave(() => engine, "shutdown") });
  const lines = [`Ferry engine ${engine.apiUrl} (database: ${engine.services.db.dialect}, data: ${config.dataDir})`];
  // Last of the start-up output, framed (and kept in the data directory until the first change).
  if (engine.initialAdminPassword) lines.push(firstStartBanner(config, engine.initialAdminPassword));
  process.stdout.write(`${lines.join("\n")}\n`);
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      engine.stop().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof ConfigError ? error.message : (error as Error).stack}\n`);
  process.exit(1);
});
