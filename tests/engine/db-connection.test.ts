import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, openDatabase } from "../../server/db/connect";
import { createTestDatabase, type TestDatabase } from "../support/databases";

// On PostgreSQL whatever FERRY_TEST_DB says: the engine must outlive a server that closes its idle
// connections (a restart, a failover, pg_terminate_backend), which only PostgreSQL's pool reports
// as an event that ends the process when nobody listens.
const POSTGRES_URL = process.env.FERRY_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

let database: TestDatabase;
let db: Db;
beforeAll(async () => {
  database = await createTestDatabase("", "postgres");
  db = await openDatabase(database.url);
});
afterAll(async () => {
  await db?.close();
  await database?.drop();
});

describe("PostgreSQL connections", () => {
  it("survive the server closing the idle ones, and the next query opens a new one", async () => {
    const count = async () => (await db.kysely.selectFrom("users").select((e) => e.fn.countAll<number>().as("n")).executeTakeFirstOrThrow()).n;
    const before = await count();
    const name = new URL(database.url).pathname.slice(1);
    const admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
    try {
      const killed = await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", [name]);
      expect(killed.rowCount).toBeGreaterThan(0);
    } finally {
      await admin.end();
    }
    // The pool's idle clients learn of it asynchronously; give the error event time to arrive.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await count()).toBe(before);
  });
});
