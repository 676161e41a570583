import type { Config } from "../config";
import { evaluate, warnings } from "./checks";
import { readHost } from "./readings";

/**
 * The engine's start-up warnings (docs/doctor.md): one log line per check at warn, from the quick
 * readings (small /proc files and statfs, no child process). Runs after the engine listens and is
 * not awaited, so it never delays or fails a start.
 */
export function logHostTuning(config: Config, log: { warn(message: string): void }): Promise<void> {
  return readHost(config, { quick: true }).then(
    (readings) => {
      for (const c of warnings(evaluate(readings))) {
        const fixes = c.sysctl.map((s) => `${s.key} = ${s.value}`).join(", ");
        log.warn(`host tuning: ${c.title}: ${c.found}${fixes ? ` (fix: ${fixes})` : ""}; run \`ferry doctor\` for details`);
      }
    },
    () => {
      // A host that cannot be read is ferry doctor's to report; the start goes on.
    },
  );
}
