import { ConfigError, loadConfig } from "./config";
import { ADMIN_ACCOUNT, startEngine } from "./engine";

/** `npm run engine`: the engine alone, configured from the environment (README, .env.example). */
async function main() {
  const config = loadConfig();
  const engine = await startEngine(config);
  const lines = [`Ferry engine ${engine.apiUrl} (database: ${engine.services.db.dialect}, data: ${config.dataDir})`];
  if (engine.initialAdminPassword) {
    lines.push(
      `First start: administrator account "${ADMIN_ACCOUNT}" created.`,
      config.adminPassword
        ? "Its initial password is the one in FERRY_ADMIN_PASSWORD."
        : `Its initial password is: ${engine.initialAdminPassword}   (shown only this once)`,
      "Sign in with it; you will be asked to choose a new password.",
    );
  }
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
