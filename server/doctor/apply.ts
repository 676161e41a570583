import { execFile } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { mergedSysctlFile, procPath, SYSCTL_D_FILE, type SysctlLine } from "./checks";

/**
 * `ferry doctor --apply` (root only): installs the lines in /etc/sysctl.d/60-ferry.conf so they
 * last after a reboot, then sets each one now with `sysctl -w`, and reports each change as it
 * happened. Loading kernel modules (tcp_bbr) is left to the operator.
 */

export interface Applied {
  key: string;
  from: string | null;
  to: string;
  /** null: set; otherwise why it was not. */
  error: string | null;
}

export interface ApplyResult {
  file: string;
  applied: Applied[];
}

export const isRoot = () => typeof process.getuid === "function" && process.getuid() === 0;

function sysctlWrite(key: string, value: string): Promise<string | null> {
  return new Promise((resolve) => {
    execFile("sysctl", ["-w", `${key}=${value}`], { timeout: 10_000 }, (error, _stdout, stderr) => {
      if (!error) return resolve(null);
      // No sysctl binary (a minimal image): the same write straight to /proc/sys.
      if ((error as NodeJS.ErrnoException).code === "ENOENT") {
        writeFile(procPath(key), value).then(
          () => resolve(null),
          (e: unknown) => resolve((e as Error).message),
        );
        return;
      }
      resolve(stderr.trim().split("\n")[0] || error.message);
    });
  });
}

export async function applyLines(lines: SysctlLine[], file = SYSCTL_D_FILE): Promise<ApplyResult> {
  let existing: string | null = null;
  try {
    existing = await readFile(file, "utf8");
  } catch {
    // first run
  }
  const content = mergedSysctlFile(existing, lines);
  if (content !== null) await writeFile(file, content, { mode: 0o644 });
  const applied: Applied[] = [];
  for (const line of lines) {
    const error = await sysctlWrite(line.key, line.value);
    applied.push({ key: line.key, from: line.current, to: line.value, error: error && line.note ? `${error} (${line.note})` : error });
  }
  return { file, applied };
}
