import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    projects: [
      { test: { name: "unit", include: ["tests/unit/**/*.test.ts", "contract/**/*.test.ts"], environment: "node" } },
      // Web units (interface kit, helpers) in a DOM, next to what they test.
      { test: { name: "web", include: ["app/**/*.test.{ts,tsx}"], environment: "happy-dom", setupFiles: ["app/test-setup.ts"] } },
      // The engine suite starts real engines; on 2 cores two files at a time keep scrypt and I/O honest.
      {
        test: {
          name: "engine",
          include: ["tests/engine/**/*.test.ts"],
          exclude: ["tests/engine/speed-limits.test.ts", "tests/engine/speed-periods.test.ts"],
          environment: "node",
          testTimeout: 30_000,
          hookTimeout: 60_000,
          maxWorkers: 2,
        },
      },
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
