import { chmod, mkdir, mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { codec, startTestEngine, type TestEngine } from "../support/engine";
import { TEST_DB } from "../support/databases";

/**
 * Data at rest (docs/security.md, "Data at rest"): the data directory is 0700, the database and its
 * -wal/-shm files, the engine secret and the web's session secret are 0600 — on a fresh data
 * directory and when they were left looser by an older install (tightened at start, and logged).
 */
vi.setConfig({ testTimeout: 90_000, hookTimeout: 120_000 });

const modeOf = async (file: string) => (await stat(file)).mode & 0o777;
const bases: string[] = [];
afterAll(async () => {
  for (const base of bases) await rm(base, { recursive: true, force: true });
});

/** An engine on `dataDir` (which may not exist yet), with its SQLite database inside it. */
async function engineOn(dataDir: string, env: Record<string, string> = {}): Promise<TestEngine> {
  return startTestEngine({ FERRY_DATA_DIR: dataDir, ...(TEST_DB === "sqlite" ? { DATABASE_URL: `sqlite:${path.join(dataDir, "ferry.db")}` } : {}), ...env });
}

/** Saves a user's SMTP account: the engine secret is made (or read) to seal its password. */
async function useEngineSecret(t: TestEngine, account: string) {
  const user = await t.createUser(account, { emailSenderType: 2 });
  const saved = await t.call("POST", "/api/user/smtp/update", {
    token: user.token,
    body: { emailFromName: "Me", emailType: 9, emailAccount: "me@example.com", emailPassword: codec.encode("Sm7p-Secret!pw"), emailSmtpHost: "smtp.example.com", emailSmtpPort: 465, emailEncryptType: 1 },
  });
  expect(saved.body.code, JSON.stringify(saved.body)).toBe(200);
}

/** Every file Ferry keeps secrets in, with the mode it has now. */
async function secretModes(dataDir: string) {
  const names = (await readdir(dataDir)).filter((n) => ["engine-secret", "web-session-secret", "forward-secret"].includes(n) || n.startsWith("ferry.db"));
  return Object.fromEntries(await Promise.all(names.map(async (n) => [n, (await modeOf(path.join(dataDir, n))).toString(8)] as const)));
}

describe("file modes of the data directory", () => {
  it("a fresh data directory is 0700, and the database, its WAL and the engine secret are 0600", async () => {
    const base = await mkdtemp(path.join(tmpdir(), "ferry-modes-"));
    bases.push(base);
    const dataDir = path.join(base, "fresh", "data");
    const t = await engineOn(dataDir);
    try {
      await useEngineSecret(t, "modes_fresh");
      expect((await modeOf(dataDir)).toString(8)).toBe("700");
      const modes = await secretModes(dataDir);
      expect(modes["engine-secret"]).toBe("600");
      expect(modes["forward-secret"]).toBe("600");
      if (TEST_DB === "sqlite") {
        // The engine is running: the database is in WAL mode with both side files open.
        expect(modes).toMatchObject({ "ferry.db": "600", "ferry.db-wal": "600", "ferry.db-shm": "600" });
      }
      expect(Object.values(modes).every((m) => m === "600")).toBe(true);
    } finally {
      await t.stop();
    }
  });

  for (const [label, fileMode, dirMode] of [
    ["0644 files in a 0755 directory", 0o644, 0o755],
    ["0666 files in a 0777 directory", 0o666, 0o777],
    ["0640 files in a 0750 directory", 0o640, 0o750],
  ] as const) {
    it(`tightens what an older install left looser: ${label}`, async () => {
      const base = await mkdtemp(path.join(tmpdir(), "ferry-modes-"));
      bases.push(base);
      const dataDir = path.join(base, "data");
      // A first run makes the database and the engine secret; the web's secret is the web's to write.
      const first = await engineOn(dataDir);
      await useEngineSecret(first, "modes_first");
      await first.stop().catch(() => undefined);
      await mkdir(dataDir, { recursive: true });
      await writeFile(path.join(dataDir, "web-session-secret"), "a-session-secret-of-the-web-client-0123456789\n");
      for (const name of await readdir(dataDir)) {
        const file = path.join(dataDir, name);
        if ((await stat(file)).isFile()) await chmod(file, fileMode);
      }
      await chmod(dataDir, dirMode);
      const loose = await secretModes(dataDir);
      expect(loose["engine-secret"]).toBe(fileMode.toString(8));

      const again = await engineOn(dataDir);
      try {
        await useEngineSecret(again, "modes_again");
        expect((await modeOf(dataDir)).toString(8)).toBe("700");
        const modes = await secretModes(dataDir);
        expect(modes["engine-secret"]).toBe("600");
        expect(modes["web-session-secret"]).toBe("600");
        expect(modes["forward-secret"]).toBe("600");
        if (TEST_DB === "sqlite") expect(modes).toMatchObject({ "ferry.db": "600", "ferry.db-wal": "600", "ferry.db-shm": "600" });
        expect(Object.values(modes).every((m) => m === "600")).toBe(true);
      } finally {
        await again.stop();
      }
    });
  }

  it("never adds a permission: a 0400 secret stays 0400", async () => {
    const base = await mkdtemp(path.join(tmpdir(), "ferry-modes-"));
    bases.push(base);
    const dataDir = path.join(base, "data");
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    await writeFile(path.join(dataDir, "engine-secret"), "an-engine-secret-of-at-least-32-characters-0123\n", { mode: 0o400 });
    const t = await engineOn(dataDir);
    try {
      await useEngineSecret(t, "modes_readonly");
      expect((await modeOf(path.join(dataDir, "engine-secret"))).toString(8)).toBe("400");
    } finally {
      await t.stop();
    }
  });

  it("behind nginx (FERRY_ACCEL_REDIRECT) the directory may be passed through but not listed (0711); the files stay 0600", async () => {
    const base = await mkdtemp(path.join(tmpdir(), "ferry-modes-"));
    bases.push(base);
    const dataDir = path.join(base, "data");
    await mkdir(dataDir, { recursive: true });
    await chmod(dataDir, 0o755);
    const t = await engineOn(dataDir, { FERRY_ACCEL_REDIRECT: "/ferry-storage" });
    try {
      await useEngineSecret(t, "modes_nginx");
      expect((await modeOf(dataDir)).toString(8)).toBe("711");
      expect(Object.values(await secretModes(dataDir)).every((m) => m === "600")).toBe(true);
    } finally {
      await t.stop();
    }
  });
});
