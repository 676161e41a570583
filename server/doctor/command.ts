import { writeFile } from "node:fs/promises";
import os from "node:os";
import type { Config } from "../config";
import { type ApplyResult, applyLines, isRoot } from "./apply";
import { type Check, evaluate, SYSCTL_D_FILE, sysctlFile, sysctlLines, warnings } from "./checks";
import { readHost } from "./readings";

/**
 * `ferry doctor [--json] [--out FILE] [--apply]` (docs/doctor.md). Exit codes: 0 nothing at warn,
 * 3 at least one warning (after --apply: what is still at warn), 1 cannot run or --apply not as
 * root (nothing changed), 2 bad arguments (the CLI's own).
 */

export const DOCTOR_USAGE = `ferry doctor [--json] [--out FILE] [--apply]
  Checks the host settings that decide transfer speed: TCP congestion control (bbr), default qdisc (fq),
  socket buffer limits, open-file limits, free disk of Ferry's storage, clock synchronisation. For each:
  what it found, why it matters, ok/warn, and the sysctl lines that fix it, written to FILE (default
  ./ferry-sysctl.conf) for root to install; nothing on the host is changed. --apply (root only) installs
  them in ${SYSCTL_D_FILE} and sets them now, and says what it changed.
  --json prints the report as JSON. Exit code 3 when a check is at warn (0 when none).`;

export const DOCTOR_EXIT_WARN = 3;

export interface DoctorOptions {
  json: boolean;
  apply: boolean;
  out: string;
}

const MARK = { ok: "[ok]     ", warn: "[warn]   ", unknown: "[unknown]" } as const;
const indent = " ".repeat(10);

function checkText(c: Check): string {
  const lines = [`${MARK[c.status]} ${c.title}: ${c.found}`];
  if (c.status !== "ok") {
    lines.push(`${indent}Why: ${c.why}`);
    for (const s of c.sysctl) lines.push(`${indent}Fix: ${s.key} = ${s.value}`);
    if (c.advice) lines.push(`${indent}Also: ${c.advice}`);
  }
  return lines.join("\n");
}

const installCommand = (file: string) => `install -m 644 ${file} ${SYSCTL_D_FILE} && sysctl --system`;

function appliedText(result: ApplyResult): string {
  const lines = [`Wrote ${result.file}.`];
  for (const a of result.applied) lines.push(a.error ? `  NOT set ${a.key} = ${a.to}: ${a.error}` : `  Set ${a.key}: ${a.from ?? "?"} -> ${a.to}`);
  return lines.join("\n");
}

/** Runs the doctor; returns the exit code. `out`/`err` print a line. */
export async function runDoctor(config: Config, options: DoctorOptions, out: (text: string) => void, err: (text: string) => void): Promise<number> {
  if (options.apply && !isRoot()) {
    err(
      `doctor --apply changes kernel settings and must be run as root (this is uid ${process.getuid?.() ?? "?"}): nothing was changed.\n` +
        `Run \`ferry doctor\` to write the fixes to ${options.out}, then as root: ${installCommand(options.out)}`,
    );
    return 1;
  }
  const host = { hostname: os.hostname(), kernel: os.release() };
  const before = evaluate(await readHost(config));
  const lines = sysctlLines(before);

  let applied: ApplyResult | null = null;
  let written: string | null = null;
  let content: string | null = null;
  let after: Check[] = before;
  if (options.apply) {
    applied = await applyLines(lines);
    after = evaluate(await readHost(config));
  } else {
    content = sysctlFile(lines);
    if (content !== null) {
      await writeFile(options.out, content, { mode: 0o644 });
      written = options.out;
    }
  }
  const remaining = warnings(after).length;

  if (options.json) {
    out(JSON.stringify({ host, checks: after, warnings: remaining, sysctlFile: written, sysctl: content, install: written ? installCommand(written) : null, applied, before: applied ? before : undefined }, null, 2));
    return remaining > 0 ? DOCTOR_EXIT_WARN : 0;
  }

  out(`Ferry doctor: host settings that decide transfer speed (${host.hostname}, Linux ${host.kernel})\n`);
  if (applied) {
    out(`Before --apply:\n${before.map(checkText).join("\n")}\n`);
    out(appliedText(applied));
    out(`\nAfter --apply:`);
  }
  out(after.map(checkText).join("\n"));
  out("");
  if (remaining === 0) out("No warnings.");
  else out(`${remaining} warning${remaining === 1 ? "" : "s"}.`);
  if (written) {
    out(`The sysctl lines are in ${written}. Ferry changes no host setting by itself; to install them, as root:`);
    out(`  ${installCommand(written)}`);
    out("or run `ferry doctor --apply` as root.");
  } else if (!applied && remaining > 0) {
    out("No sysctl line fixes these; see the notes above.");
  }
  return remaining > 0 ? DOCTOR_EXIT_WARN : 0;
}
