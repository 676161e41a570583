import { defineConfig } from "vitest/config";

/**
 * Engine files whose subject is not the database, so `test:engine:db` (PostgreSQL, MariaDB) leaves
 * them out and they run on SQLite in `test:engine`:
 * - the wire protocols, TLS, file-system paths, thumbnails, the built binary and installers, which
 *   meet the database only to sign in, as every other engine file does;
 * - the engine and CLI processes (start-up, restart, the doctor, file modes of the data directory,
 *   the CLI's user and group commands, which call the same services the REST suites run on every
 *   database), and the outside servers the engine talks to (SMTP, LDAP, HTTP sign-in, S3) and the
 *   host (dashboard numbers, lstat workers, auto-clean's file times, watermark images, the licence
 *   file): what they store goes through services other files cover on each database.
 * Files that do database work across processes or under concurrency (uploads-crash, quota
 * reservations, database-copy, the P2P locks) stay in.
 */
const DATABASE_NEUTRAL = [
  "bad-input", "cli-defaults", "client-address", "client-tls", "clients", "downloads", "engine-build", "files-paths",
  "folder-walks", "installers", "licence-sign", "names", "refused-bodies", "symlink-forbidden", "thumbnails", "tls",
  "upload-chunks", "upload-mkdir", "upload-protocol", "uploads-hash", "uploads-patch", "uploads-store",
  "cli", "process", "dashboard-process", "doctor", "data-modes", "licence",
  "mail-send", "mail-sender-types", "transfer-notices", "share-access-notice", "shares-mail", "authentication-ways", "authentication-ldap",
  "uploads-object-storage", "dashboard", "storage-list", "autoclean", "watermark",
].map((name) => `tests/engine/${name}.test.ts`);
const TIMED = ["tests/engine/speed-limits.test.ts", "tests/engine/speed-periods.test.ts"];
const ENGINE = { environment: "node", testTimeout: 30_000, hookTimeout: 60_000, maxWorkers: 2 } as const;

export default defineConfig({
  test: {
    projects: [
      { test: { name: "unit", include: ["tests/unit/**/*.test.ts", "contract/**/*.test.ts"], environment: "node" } },
      // Web units (interface kit, helpers) in a DOM, next to what they test.
      { test: { name: "web", include: ["app/**/*.test.{ts,tsx}"], environment: "happy-dom", setupFiles: ["app/test-setup.ts"] } },
      // The engine suite starts real engines; on 2 cores two files at a time keep scrypt and I/O honest.
      { test: { name: "engine", include: ["tests/engine/**/*.test.ts"], exclude: TIMED, ...ENGINE } },
      // The engine files that touch the database, for the PostgreSQL and MariaDB runs (`test:engine:db`).
      { test: { name: "engine-db", include: ["tests/engine/**/*.test.ts"], exclude: [...TIMED, ...DATABASE_NEUTRAL], ...ENGINE } },
      // Speed limits measure transfer rates against the limit (±10 %): alone, after the rest of the
      // engine suite, so another file's engines do not take the CPU a limited stream's timers need.
      {
        test: {
          name: "engine-timing",
          include: ["tests/engine/speed-limits.test.ts", "tests/engine/speed-periods.test.ts"],
          environment: "node",
          testTimeout: 30_000,
          hookTimeout: 60_000,
          maxWorkers: 1,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
      // Storage drivers against their real servers (s3rver…): no database, so `test:engine:db` leaves them out.
      { test: { name: "storage", include: ["tests/storage/**/*.test.ts"], environment: "node", testTimeout: 30_000, hookTimeout: 60_000, maxWorkers: 2 } },
      // The whole product as `npm start` runs it (built engine + remix-serve): restarts, floods. One file at a time.
      { test: { name: "system", include: ["tests/system/**/*.test.ts"], environment: "node", testTimeout: 600_000, hookTimeout: 200_000, maxWorkers: 1, fileParallelism: false } },
    ],
  },
});
