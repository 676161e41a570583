import { parseWithZod } from "@conform-to/zod/v4";
import type { SignedIn } from "~/utils/session.server";
import type { CopyStatus, CurrentDatabase, TestResult } from "../../../contract/database";
import { errorVars } from "../../../contract/errors";
import { type PowerResult, askPower } from "../dashboard/data.server";
import { targetFormSchema } from "./schema";

export const DATABASE_API = "/api/admin/database";

/** What the page shows: the current database and the copy's status, or `unreachable` (a restart under way). */
export type DatabaseData = { unreachable: false; current: CurrentDatabase; copy: CopyStatus } | { unreachable: true };

export async function readDatabase(admin: SignedIn): Promise<DatabaseData> {
  try {
    const [current, copy] = await Promise.all([admin.call<CurrentDatabase>(DATABASE_API), admin.call<CopyStatus>(`${DATABASE_API}/copy`)]);
    if (!current.result || !current.data || !copy.result || !copy.data) return { unreachable: true };
    return { unreachable: false, current: current.data, copy: copy.data };
  } catch {
    // Down while it restarts (and copies once more): the page says so and looks again.
    return { unreachable: true };
  }
}

/** An engine refusal as the page shows it: its code and the values its message names. */
export type Refusal = { code: number; vars: Record<string, string | number> };

/**
 * The target form's posts: Test (the engine's answer), Copy (asks for confirmation first: `ask`),
 * Copy confirmed (starts it: the page then follows GET copy).
 */
export async function submitTarget(admin: SignedIn, form: FormData) {
  const submission = parseWithZod(form, { schema: targetFormSchema });
  if (submission.status !== "success") return { intent: "target" as const, submission: submission.reply() };
  const { intent, replace, ...target } = submission.value;
  if (intent === "copy") return { intent: "target" as const, submission: submission.reply(), ask: { location: `${target.dialect}://${target.host}:${target.port}/${target.database}` } };
  if (intent === "test") {
    const reply = await admin.call<TestResult>(`${DATABASE_API}/test`, { method: "POST", body: JSON.stringify(target) });
    if (!reply.result || !reply.data) return { intent: "target" as const, submission: submission.reply(), refusal: refusalOf(reply) };
    return { intent: "target" as const, submission: submission.reply(), tested: reply.data };
  }
  const reply = await admin.call<CopyStatus>(`${DATABASE_API}/copy`, { method: "POST", body: JSON.stringify({ ...target, replace: replace === "on" }) });
  if (!reply.result) return { intent: "target" as const, submission: submission.reply(), refusal: refusalOf(reply) };
  return { intent: "target" as const, submission: submission.reply({ resetForm: true }), started: true };
}

function refusalOf(reply: { code: number; data?: unknown }): Refusal {
  return { code: reply.code, vars: errorVars(reply.data) ?? {} };
}

export async function restart(admin: SignedIn): Promise<{ intent: "restart"; result: PowerResult }> {
  return { intent: "restart", result: await askPower(admin, "restart") };
}

/** Forgets the switch waiting for the restart. */
export async function cancelPending(admin: SignedIn): Promise<{ intent: "cancel"; code: number | null }> {
  const reply = await admin.call<CurrentDatabase>(`${DATABASE_API}/pending`, { method: "DELETE" });
  return { intent: "cancel", code: reply.result ? null : reply.code };
}
