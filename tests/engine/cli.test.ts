import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { normalizePermission, parsePermission } from "../../contract/permissions";
import { loadConfig } from "../../server/config";
import { startEngine } from "../../server/engine";
import { type CliRun, runCli } from "../support/cli";
import { createTestDatabase } from "../support/databases";
import { codec, SALT, startTestEngine, type TestEngine } from "../support/engine";

// Every test here starts engine or CLI processes (a few seconds each on a busy 2-core machine).
vi.setConfig({ testTimeout: 90_000 });

/**
 * The operator CLI (docs/cli.md), run as a child process on the engine's own database, checked
 * through the running engine's HTTP API: what a user would notice. Each CLI start costs about a
 * second, so independent commands run side by side.
 */

const PASSWORD = "Cli#Start2026";
const NEW_PASSWORD = "Cli#Reset2026";

let t: TestEngine;
beforeAll(async () => {
  // The test process is the trusted proxy, so each sign-in can come from its own address and
  // the few wrong passwords below never add up to an address lockout.
  t = await startTestEngine({ FERRY_TRUSTED_PROXIES: "127.0.0.1" });
});
afterAll(() => t?.stop());

type Run = CliRun;

function ferry(args: string[], env: Record<string, string> = {}, db = { databaseUrl: t.databaseUrl, dataDir: t.dataDir }): Promise<Run> {
  return runCli(args, {
    DATABASE_URL: db.databaseUrl,
    FERRY_DATA_DIR: db.dataDir,
    FERRY_HASHID_SALT: SALT,
    FERRY_ADMIN_PASSWORD: "",
    FERRY_CLI_PASSWORD: "",
    ...env,
  });
}

/** Runs a command that must succeed. */
async function ok(args: string[], env?: Record<string, string>): Promise<Run> {
  const run = await ferry(args, env);
  expect(run, `ferry ${args.join(" ")}`).toMatchObject({ code: 0 });
  return run;
}

let ip = 0;
const login = (account: string, password: string) => t.login(account, password, { "x-forwarded-for": `10.77.0.${++ip}` });
const info = (token: string) => t.call("GET", "/api/user/info", { token });

describe("user create", () => {
  it("creates users that can sign in, or must first change the password; refuses duplicates, weak passwords and bad arguments", async () => {
    const [ready, forced, weak, unknownOption, badPermission, noPassword, help] = await Promise.all([
      ferry(["user", "create", "--account", "cli_alice", "--password", PASSWORD, "--no-force-change", "--permission", "list,download,upload", "--fullname", "Alice Cli", "--email", "alice@cli.example"]),
      // The password from the environment, not the command line; the default forces a change.
      ferry(["user", "create", "--account", "cli_bob", "--type", "5"], { FERRY_CLI_PASSWORD: PASSWORD }),
      ferry(["user", "create", "--account", "cli_weak", "--password", "abc"]),
      ferry(["user", "create", "--account", "cli_odd", "--password", PASSWORD, "--bogus"]),
      ferry(["user", "create", "--account", "cli_odd", "--password", PASSWORD, "--permission", "read,fly"]),
      ferry(["user", "create", "--account", "cli_odd"]),
      ferry(["--help"]),
    ]);
    expect(ready).toMatchObject({ code: 0 });
    expect(ready.stdout).toContain("cli_alice");
    expect(forced).toMatchObject({ code: 0 });

    const token = (await login("cli_alice", PASSWORD)).body.data.token as string;
    expect((await info(token)).body.data.user).toMatchObject({
      account: "cli_alice",
      fullname: "Alice Cli",
      email: "alice@cli.example",
      isAdmin: false,
      needUpdatePwd: false,
      permission: normalizePermission(parsePermission("list,download,upload")),
    });
    expect((await login("cli_bob", PASSWORD)).body.code).toBe(1074);

    expect(weak.code).toBe(1);
    expect(weak.stderr).toMatch(/^error 1023: /m);
    expect((await login("cli_weak", "abc")).body.code).toBe(1005);

    for (const bad of [unknownOption, badPermission, noPassword]) {
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain("Usage: ferry user create");
    }
    expect(unknownOption.stderr).toContain("--bogus");
    expect(badPermission.stderr).toContain('unknown permission "read"');
    expect(noPassword.stderr).toContain("FERRY_CLI_PASSWORD");
    expect(help).toMatchObject({ code: 0, stderr: "" });
    expect(help.stdout).toContain("group add-member");

    const [duplicate, unknownCommand] = await Promise.all([
      ferry(["user", "create", "--account", "CLI_ALICE", "--password", NEW_PASSWORD]),
      ferry(["user", "frobnicate"]),
    ]);
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr).toContain("error 1004: The account already exists");
    expect(unknownCommand.code).toBe(2);
    expect(unknownCommand.stderr).toContain("Unknown command: user frobnicate");
    // The refused duplicate left the original untouched.
    expect((await login("cli_alice", PASSWORD)).body.code).toBe(200);
  });
});

describe("user lock, unlock and password", () => {
  it("locks out sign-in and live sessions, unlocks, and resets the password", async () => {
    const token = await t.tokenFor("cli_alice", PASSWORD);
    expect((await info(token)).body.code).toBe(200);

    await ok(["user", "lock", "--account", "cli_alice"]);
    expect((await login("cli_alice", PASSWORD)).body.code).toBe(1050);
    expect((await info(token)).body.code).toBe(1009);

    await ok(["user", "unlock", "--account", "cli_alice"]);
    const second = await login("cli_alice", PASSWORD);
    expect(second.body.code).toBe(200);

    const reset = await ok(["user", "password", "--account", "cli_alice", "--no-force-change"], { FERRY_CLI_PASSWORD: NEW_PASSWORD });
    expect(reset.stdout).toContain("cli_alice");
    expect((await info(second.body.data.token)).body.code).toBe(1009);
    expect((await login("cli_alice", PASSWORD)).body.code).toBe(1005);
    expect((await login("cli_alice", NEW_PASSWORD)).body.code).toBe(200);

    // The administrator can be neither locked nor deleted; an unknown account is named.
    const [lockAdmin, deleteAdmin, nobody] = await Promise.all([
      ferry(["user", "lock", "--account", "admin"]),
      ferry(["user", "delete", "--account", "admin"]),
      ferry(["user", "unlock", "--account", "cli_nobody"]),
    ]);
    expect(lockAdmin).toMatchObject({ code: 1 });
    expect(lockAdmin.stderr).toMatch(/^error 4104: /);
    expect(deleteAdmin).toMatchObject({ code: 1 });
    expect(deleteAdmin.stderr).toMatch(/^error 1032: /);
    expect(nobody).toMatchObject({ code: 1 });
    expect(nobody.stderr).toContain('error 4118: User ID not found (no account "cli_nobody")');
  });
});

describe("groups", () => {
  it("creates a group, adds, changes and removes a member, and lists users and groups", async () => {
    const token = await t.tokenFor("cli_alice", NEW_PASSWORD);
    const groupsOf = async () => (await info(token)).body.data.user.groupList as Array<{ groupName: string; groupPermission: number }>;

    await ok(["group", "create", "--name", "Cli Team", "--home", "/teams/cli"]);
    await ok(["group", "add-member", "--group", "cli team", "--account", "cli_alice", "--permission", "list,download"]);
    expect(await groupsOf()).toEqual([expect.objectContaining({ groupName: "Cli Team", groupPermission: normalizePermission(parsePermission("list,download")) })]);

    const [changed, users, groups, missingGroup] = await Promise.all([
      ferry(["group", "add-member", "--group", "Cli Team", "--account", "cli_alice", "--permission", "134"]),
      ferry(["user", "list", "--json"]),
      ferry(["group", "list", "--json"]),
      ferry(["group", "add-member", "--group", "No Such Team", "--account", "cli_alice", "--permission", "list"]),
    ]);
    expect(changed.code).toBe(0);
    expect(await groupsOf()).toEqual([expect.objectContaining({ groupName: "Cli Team", groupPermission: normalizePermission(134) })]);

    expect(users.code).toBe(0);
    const userList = JSON.parse(users.stdout) as Array<{ account: string; role: string }>;
    expect(userList.map((u) => u.account)).toEqual(expect.arrayContaining(["admin", "cli_alice", "cli_bob"]));
    expect(JSON.stringify(userList)).not.toMatch(/password_hash|scrypt/);

    expect(groups.code).toBe(0);
    const groupList = JSON.parse(groups.stdout) as Array<{ name: string; home: string; members: Array<{ account: string }> }>;
    expect(groupList).toEqual(expect.arrayContaining([expect.objectContaining({ name: "Cli Team", home: "/teams/cli" })]));
    expect(missingGroup.code).toBe(1);
    expect(missingGroup.stderr).toContain("error 4119");

    await ok(["group", "remove-member", "--group", "Cli Team", "--account", "cli_alice"]);
    expect(await groupsOf()).toEqual([]);
  });
});

describe("user list and delete", () => {
  it("prints a table, then deletes a user so that it can no longer sign in", async () => {
    const [table, search] = await Promise.all([ok(["user", "list"]), ok(["user", "list", "--search", "CLI_B", "--json"])]);
    expect(table.stdout).toMatch(/^ID\s+ACCOUNT\s+ROLE\s+TYPE\s+PERMISSION\s+LOCKED\s+GROUPS$/m);
    expect(table.stdout).toMatch(/^\d+\s+cli_alice\s+user\s+Normal\(2\)\s+List;Download;Upload\s+no\s+-$/m);
    expect(table.stdout).toMatch(/^\d+\s+cli_bob\s+user\s+Email\(5\)\s+List;Download\s+no\s+-$/m);
    expect((JSON.parse(search.stdout) as Array<{ account: string }>).map((u) => u.account)).toEqual(["cli_bob"]);

    await ok(["user", "delete", "--account", "cli_bob"]);
    expect((await login("cli_bob", PASSWORD)).body.code).toBe(1005);
    expect((await ferry(["user", "delete", "--account", "cli_bob"])).code).toBe(1);
  });
});

describe("a fresh database", () => {
  it("is migrated, gets its administrator, and prints the generated password once (on stderr)", async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), "ferry-cli-"));
    const database = await createTestDatabase(dataDir);
    try {
      const first = await ferry(["user", "list", "--json"], {}, { databaseUrl: database.url, dataDir });
      expect(first.code).toBe(0);
      expect((JSON.parse(first.stdout) as Array<{ account: string }>).map((u) => u.account)).toEqual(["admin"]);
      const password = /Initial password: +(\S+)/.exec(first.stderr)?.[1];
      expect(password).toBeTruthy();

      const again = await ferry(["group", "list"], {}, { databaseUrl: database.url, dataDir });
      expect(again).toMatchObject({ code: 0, stderr: "", stdout: "No groups.\n" });

      // The printed password is the administrator's: an engine on that database asks to change it.
      const engine = await startEngine(
        loadConfig({ FERRY_DATA_DIR: dataDir, DATABASE_URL: database.url, FERRY_HOST: "127.0.0.1", FERRY_API_PORT: "0", FERRY_HASHID_SALT: SALT, FERRY_LOG_LEVEL: "silent" }),
      );
      try {
        expect(engine.initialAdminPassword).toBeNull();
        const res = await fetch(`${engine.apiUrl}/api/user/login`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ UK: codec.encodeUK("admin", password!) }),
        });
        expect(((await res.json()) as { code: number }).code).toBe(1074);
      } finally {
        await engine.stop();
      }
    } finally {
      await database.drop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
