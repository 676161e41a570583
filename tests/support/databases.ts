import { randomBytes } from "node:crypto";
import { createConnection } from "mysql2/promise";
import pg from "pg";

/** Which database the engine suite runs on: FERRY_TEST_DB=sqlite (default), postgres or mysql. */
export const TEST_DB = (process.env.FERRY_TEST_DB ?? "sqlite") as "sqlite" | "postgres" | "mysql";
const POSTGRES_URL = process.env.FERRY_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const MYSQL_URL = process.env.FERRY_TEST_MYSQL_URL ?? "mysql://root@127.0.0.1:3306/test";

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A fresh, empty database of its own for one engine, so runs and files never see each other's rows. */
export async function createTestDatabase(dataDir: string, kind: typeof TEST_DB = TEST_DB): Promise<TestDatabase> {
  const name = `ferry_t_${randomBytes(6).toString("hex")}`;
  if (kind === "sqlite") return { url: `sqlite:${dataDir}/ferry.db`, drop: async () => {} };
  if (kind === "postgres") {
    const admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const url = new URL(POSTGRES_URL);
    url.pathname = `/${name}`;
    return {
      url: url.toString(),
      async drop() {
        const c = new pg.Client({ connectionString: POSTGRES_URL });
        await c.connect();
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await c.end();
      },
    };
  }
  const admin = await createConnection(MYSQL_URL);
  await admin.query(`CREATE DATABASE ${name} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
  await admin.end();
  const url = new URL(MYSQL_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = await createConnection(MYSQL_URL);
      await c.query(`DROP DATABASE IF EXISTS ${name}`);
      await c.end();
    },
  };
}
