import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { afterAll, describe, expect, it, vi } from "vitest";
import { connectUrl } from "../../server/database/copy";
import { createTestDatabase, type TestDatabase } from "../support/databases";

/**
 * The database copy's statement cap (server/database/copy.ts, connectUrl; docs/database.md): on
 * PostgreSQL (statement_timeout) and on MariaDB (max_statement_time) alike the server cancels a
 * statement that outlasts the cap, so it fails instead of holding the copy, and the pool's one
 * connection serves the next statement. Both servers run here and in
 * CI (.ci/run), whichever database FERRY_TEST_DB names.
 */
vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const made: TestDatabase[] = [];
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(made.map((d) => d.drop()));
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

describe.each([
  ["postgres", sql`select pg_sleep(5)`],
  ["mysql", sql`select sleep(5)`],
] as const)("a statement on %s", (kind, slow) => {
  it("that outlasts the cap fails; the next one is served", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "ferry-timeout-"));
    dirs.push(dir);
    const database = await createTestDatabase(dir, kind);
    made.push(database);
    const { kysely } = await connectUrl(database.url, { queryTimeoutMs: 300, connections: 1 });
    try {
      // The server itself cancels it, so the one connection is free again at once.
      await expect(slow.execute(kysely)).rejects.toThrow(kind === "postgres" ? /statement timeout/ : /max_statement_time exceeded/);
      expect((await sql<{ one: number }>`select 1 as one`.execute(kysely)).rows).toEqual([{ one: 1 }]);
    } finally {
      await kysely.destroy();
    }
  });
});
