import { spawn } from "node:child_process";
import path from "node:path";

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

const ROOT = path.resolve(import.meta.dirname, "../..");

/** The operator CLI (`npm run ferry`) as a child process, as an operator runs it; `env` adds to this process's environment. */
export function runCli(args: string[], env: Record<string, string>): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "server/cli/main.ts", ...args], {
      cwd: ROOT,
      env: { ...process.env, FERRY_LOG_LEVEL: "silent", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}
