import { randomBytes } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ErrorCode } from "../../contract/errors";
import { PERMISSION_FULL } from "../../contract/permissions";
import { startTestEngine, type TestEngine } from "../support/engine";
import { connectFiles } from "../support/file-client";
import { connectVisitor, makeLink, SHARE_ENV, shareTokenOf } from "../support/share-visitor";
import { blake3Hex, tusClient } from "../support/tus-client";

/**
 * Homes and identities (docs/security.md, "Homes and identities"): a user or group deleted and
 * created again under the same name starts with an empty home of its own; the old home stays on
 * disk, unserved; links, share tokens and sign-in tokens of the deleted account stop working.
 */
vi.setConfig({ testTimeout: 90_000, hookTimeout: 120_000 });

let t: TestEngine;
let admin: string;

beforeAll(async () => {
  t = await startTestEngine(SHARE_ENV);
  admin = await t.adminToken();
});
afterAll(() => t?.stop());

const storageOf = (home: string) => path.join(t.dataDir, "storage", home);
const adminUser = async (id: number) => (await t.call("GET", `/api/admin/users/${id}`, { token: admin })).body.data;

/** A user with files (uploaded through tus and committed), a download link and an invitation. */
async function userWithShares(account: string, options: Record<string, unknown> = {}) {
  const user = await t.createUser(account, { permission: PERMISSION_FULL, ...options });
  const files = await connectFiles(t.fileUrl, user.socketToken);
  const data = randomBytes(2048);
  const tus = tusClient(t.fileUrl, user.socketToken);
  for (const p of ["/pub/secret.txt", "/inbox/old.txt"]) {
    const created = await tus.create({ groupId: "0", path: p }, data.length, data);
    expect(created.status, created.text).toBe(201);
    await files.ok("commit", { uploadId: created.id!, hash: await blake3Hex(data) });
  }
  await files.close();
  const download = await makeLink(t, user.token, { shareFiles: ["/pub"] });
  const invite = await makeLink(t, user.token, { shareUrlType: 0, shareServerPath: "/inbox", needPassword: true, shareUrlPasswd: "up" });
  return { ...user, data, download, invite, downloadToken: await shareTokenOf(t, download), inviteToken: await shareTokenOf(t, invite) };
}

describe("a user deleted and created again under the same name", () => {
  for (const [account, options] of [
    ["re_alice", {}],
    ["re_bob", { quota: 1_000_000 }],
  ] as const) {
    it(`starts empty and never reaches the old files (${account})`, async () => {
      const old = await userWithShares(account, options);
      const oldHome = (await adminUser(old.id)).home as string;
      expect(oldHome).toBe(`/users/${account}`);

      expect((await t.call("DELETE", `/api/admin/users/${old.id}`, { token: admin })).body.code).toBe(200);
      const again = await t.createUser(account, { permission: PERMISSION_FULL, ...options });
      expect(again.id).not.toBe(old.id);

      // A home of its own, empty; the old files are still on disk (nothing deleted by surprise).
      const view = await adminUser(again.id);
      expect(view.home).not.toBe(oldHome);
      expect(view.home).toMatch(new RegExp(`^/users/${account}\\.[0-9a-f]{8}$`));
      expect(view.space).toMatchObject({ used: 0, files: 0, folders: 0 });
      expect(await readdir(storageOf(view.home))).toEqual([]);
      expect(await readFile(path.join(storageOf(oldHome), "pub", "secret.txt"))).toEqual(old.data);

      const files = await connectFiles(t.fileUrl, again.socketToken);
      expect((await files.ok("list", { groupId: 0, path: "/" })).names ?? []).toEqual([]);
      expect((await files.cmd("download", { groupId: 0, paths: ["/pub/secret.txt"] })).code).not.toBe(200);
      await files.close();

      // The old links and their share tokens are refused, before and after a visitor signs in.
      for (const link of [old.download, old.invite]) {
        const params = new URLSearchParams({ url: link.shareUrl, fingerprint: "fp" });
        expect((await t.call("GET", `/api/share/link/info?${params}`)).body.code).toBe(ErrorCode.ShareUrlNotExist);
      }
      await expect(connectVisitor(t.fileUrl, old.downloadToken)).rejects.toThrow();
      await expect(connectVisitor(t.fileUrl, old.inviteToken)).rejects.toThrow();
      const visitorUpload = await tusClient(t.fileUrl, old.inviteToken).create({ groupId: "0", path: "/x.txt" }, 10);
      expect(visitorUpload.status).not.toBe(201);

      // The old sign-in tokens are refused: REST, file server socket and tus.
      expect((await t.call("GET", "/api/user/info", { token: old.token })).body.code).not.toBe(200);
      const oldSocket = await connectFiles(t.fileUrl, null);
      expect((await oldSocket.cmd("login", { token: old.socketToken })).code).not.toBe(200);
      await oldSocket.close();
      expect((await tusClient(t.fileUrl, old.socketToken).create({ groupId: "0", path: "/y.txt" }, 10)).status).toBe(401);
    });
  }

  it("gets a new folder at every re-creation, and an admin may still hand the old folder over explicitly", async () => {
    const first = await t.createUser("re_carol");
    expect((await adminUser(first.id)).home).toBe("/users/re_carol");
    await t.call("DELETE", `/api/admin/users/${first.id}`, { token: admin });
    const second = await t.createUser("re_carol");
    const secondHome = (await adminUser(second.id)).home as string;
    await t.call("DELETE", `/api/admin/users/${second.id}`, { token: admin });
    const third = await t.createUser("re_carol");
    const homes = [(await adminUser(third.id)).home, secondHome];
    expect(new Set([...homes, "/users/re_carol"]).size).toBe(3);

    // Handing the old files to a new account is an administrator's explicit choice.
    const chosen = await t.createUser("re_carol2", { home: "/users/re_carol" });
    expect((await adminUser(chosen.id)).home).toBe("/users/re_carol");
  });

  it("a refused create leaves no home folder behind", async () => {
    await t.createUser("re_dup");
    const before = await readdir(storageOf("/users"));
    const dup = await t.call("POST", "/api/admin/users", { token: admin, body: { account: "re_dup", password: "Str0ng#Pass", needUpdatePwd: false } });
    expect(dup.body.code).toBe(ErrorCode.AccountExists);
    expect(await readdir(storageOf("/users"))).toEqual(before);
  });
});

describe("a group deleted and created again under the same name", () => {
  for (const name of ["re_team", "Re Team 2"]) {
    it(`starts empty and its old members' files stay out of reach (${name})`, async () => {
      const member = await t.createUser(`re_m${randomBytes(3).toString("hex")}`);
      const created = await t.call("POST", "/api/admin/groups", { token: admin, body: { name } });
      expect(created.body.code).toBe(200);
      const group = created.body.data as { id: number; home: string };
      expect(group.home).toBe(`/groups/${name}`);
      await t.call("PUT", `/api/admin/groups/${group.id}/members/${member.id}`, { token: admin, body: { groupPermission: PERMISSION_FULL } });
      const data = randomBytes(512);
      const tus = tusClient(t.fileUrl, member.socketToken);
      const up = await tus.create({ groupId: String(group.id), path: "/team.txt" }, data.length, data);
      expect(up.status, up.text).toBe(201);
      const files = await connectFiles(t.fileUrl, member.socketToken);
      await files.ok("commit", { uploadId: up.id!, hash: await blake3Hex(data) });

      await t.call("DELETE", `/api/admin/groups/${group.id}/members/${member.id}`, { token: admin });
      expect((await t.call("DELETE", `/api/admin/groups/${group.id}`, { token: admin })).body.code).toBe(200);
      const again = await t.call("POST", "/api/admin/groups", { token: admin, body: { name } });
      expect(again.body.code).toBe(200);
      const fresh = again.body.data as { id: number; home: string; space: { used: number; files: number } };
      expect(fresh.id).not.toBe(group.id);
      expect(fresh.home).not.toBe(group.home);
      expect(fresh.space).toMatchObject({ used: 0, files: 0 });
      expect(await readdir(storageOf(fresh.home))).toEqual([]);

      // The old member, added to the new group, sees an empty space; the old group id is refused.
      await t.call("PUT", `/api/admin/groups/${fresh.id}/members/${member.id}`, { token: admin, body: { groupPermission: PERMISSION_FULL } });
      expect((await files.ok("list", { groupId: fresh.id, path: "/" })).names ?? []).toEqual([]);
      expect((await files.cmd("list", { groupId: group.id, path: "/" })).code).toBe(ErrorCode.PermissionDenied);
      await files.close();
    });
  }
});
