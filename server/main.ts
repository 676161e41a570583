import { ConfigError, loadConfig } from "./config";
import { startEngine } from "./engine";
import { firstStartBanner } from "./services";

/** `npm run engine`: the engine alone, configured from the environment (README, .env.example). */
async function main() {
  const config = loadConfig();
  const engine = await startEngine(config);
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
