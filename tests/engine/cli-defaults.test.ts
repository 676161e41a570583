import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { normalizePermission, PERMISSION_FULL, Permission } from "../../contract/permissions";
import { runCli } from "../support/cli";
import { SALT, startTestEngine, type TestEngine } from "../support/engine";

// CLI processes take a few seconds each on a busy 2-core machine.
vi.setConfig({ testTimeout: 90_000 });

/** What a new operator meets with `ferry user create` (issue 13, item 14): the default permission and the presets. */
let t: TestEngine;
beforeAll(async () => {
  t = await startTestEngine();
});
afterAll(() => t?.stop());

const ferry = (args: string[]) =>
  runCli(args, { DATABASE_URL: t.databaseUrl, FERRY_DATA_DIR: t.dataDir, FERRY_HASHID_SALT: SALT, FERRY_ADMIN_PASSWORD: "", FERRY_CLI_PASSWORD: "Cli#Start2026" });

async function permissionOf(account: string): Promise<number> {
  const users = (await t.call("GET", `/api/admin/users?search=${account}`, { token: await t.adminToken() })).body.data.list as Array<{ account: string; permission: number }>;
  return users.find((u) => u.account === account)!.permission;
}

const setDefault = async (defaultPermission: number) => {
  const reply = await t.call("PATCH", "/api/admin/settings/security", { token: await t.adminToken(), body: { defaultPermission } });
  expect(reply.body).toMatchObject({ code: 200, data: { defaultPermission } });
};

describe("ferry user create: permissions a new operator meets", () => {
  it("without --permission gives the security settings' default permission, and says which", async () => {
    const settings = (await t.call("GET", "/api/admin/settings/security", { token: await t.adminToken() })).body.data;
    expect(settings.defaultPermission).toBe(Permission.List | Permission.Download);
    const plain = await ferry(["user", "create", "--account", "def_plain"]);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain("permission List;Download,");
    expect(await permissionOf("def_plain")).toBe(normalizePermission(Permission.List | Permission.Download));

    // An administrator widens the default: the CLI (and the admin API) follow it.
    const wider = Permission.List | Permission.Download | Permission.Upload | Permission.Mkdir;
    await setDefault(wider);
    try {
      const changed = await ferry(["user", "create", "--account", "def_wider"]);
      expect(changed.code).toBe(0);
      expect(changed.stdout).toContain("permission List;Download;Mkdir;Upload,");
      expect(await permissionOf("def_wider")).toBe(normalizePermission(wider));
      const viaApi = await t.call("POST", "/api/admin/users", { token: await t.adminToken(), body: { account: "def_api", password: "Api#Start2026" } });
      expect(viaApi.body.data.permission).toBe(normalizePermission(wider));
    } finally {
      await setDefault(Permission.List | Permission.Download);
    }
  });

  it("--preset personal gives full personal use; --preset and --permission do not mix; the help names both and the default", async () => {
    const [personal, both, unknown, help] = await Promise.all([
      ferry(["user", "create", "--account", "def_personal", "--preset", "personal"]),
      ferry(["user", "create", "--account", "def_both", "--preset", "personal", "--permission", "list"]),
      ferry(["user", "create", "--account", "def_unknown", "--preset", "everything"]),
      ferry(["help", "user", "create"]),
    ]);
    expect(personal.code).toBe(0);
    expect(personal.stdout).toContain("permission List;Download;Delete;Rename;Mkdir;Upload;Move;Copy;Share;Invite;HotFolder,");
    expect(await permissionOf("def_personal")).toBe(normalizePermission(PERMISSION_FULL));
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("--permission and --preset");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("--preset must be one of personal, readonly");
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("--preset personal|readonly");
    expect(help.stdout).toMatch(/personal = full personal use \(List;Download;Delete;Rename;Mkdir;Upload;Move;Copy;Share;Invite;HotFolder\)/);
    expect(help.stdout).toMatch(/default permission of the security settings\s+\(defaultPermission: List;Download/);
  });
});
