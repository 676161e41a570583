import dns from "node:dns";
import { mkdir, mkdtemp, readFile, rm, stat, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ErrorCode } from "../../contract/errors";
import { PERMISSION_FULL } from "../../contract/permissions";
import { createS3Storage } from "../../server/storage/s3";
import { startTestEngine, type TestEngine } from "../support/engine";
import { connectFiles, type FileClient } from "../support/file-client";
import { S3RVER_KEYS, type S3Server, startS3rver } from "../support/s3";

/**
 * The administrator's storages (docs/admin-api.md "Storages", docs/storage.md "Storages") against
 * the real engine and a real S3-compatible server (s3rver): add, edit, delete, default, connection
 * tests that write, read and delete a probe object, credentials never answered, and a group whose
 * home is on the S3 storage used through the file server.
 */
vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

let t: TestEngine;
let s3: S3Server;
let token: string;
/** Folders for local storages, outside the engine's data directory (local storages never overlap it). */
let outside: string;
/** Every response body this file saw: none may hold a credential. */
const seen: string[] = [];

async function admin(method: string, url: string, body?: unknown) {
  const reply = await t.call(method, url, { token, body });
  seen.push(JSON.stringify(reply.body));
  return reply.body;
}

const s3Body = (over: Record<string, unknown> = {}) => ({
  name: "Objects",
  provider: "s3compatible",
  endpoint: s3.endpoint,
  bucket: s3.bucket,
  region: "us-east-1",
  path: "ferry-root",
  ...S3RVER_KEYS,
  ...over,
});

/** The objects under a prefix of the bucket, read straight from s3rver (not through Ferry). */
function bucketAt(prefix: string) {
  return createS3Storage({ endpoint: s3.endpoint, bucket: s3.bucket, ...S3RVER_KEYS, path: prefix });
}

beforeAll(async () => {
  s3 = await startS3rver("ferry");
  t = await startTestEngine();
  token = await t.adminToken();
  outside = await mkdtemp(path.join(tmpdir(), "ferry-storages-"));
});
afterAll(async () => {
  await t?.stop();
  if (outside) await rm(outside, { recursive: true, force: true });
  await s3?.stop();
});

describe("storages: the administrator API", () => {
  let id: number;

  it("starts with the built-in local storage as the default one", async () => {
    const list = await admin("GET", "/api/admin/storages");
    expect(list.code).toBe(200);
    expect(list.data.list).toEqual([expect.objectContaining({ id: 1, provider: "local", type: 0, isDefault: true, builtin: true, path: `${t.dataDir}/storage` })]);
    // The administrator's home is on it.
    expect(list.data.list[0].users).toBeGreaterThanOrEqual(1);
  });

  it("adds an S3 storage, answers only whether its credentials are set, and keeps them sealed", async () => {
    const added = await admin("POST", "/api/admin/storages", s3Body());
    expect(added.code).toBe(200);
    id = added.data.id;
    expect(added.data).toMatchObject({ name: "Objects", provider: "s3compatible", type: 3, isDefault: false, bucket: "ferry", path: "ferry-root", accessKeyIdSet: true, secretAccessKeySet: true, connectionStringSet: false });
    expect(added.data).not.toHaveProperty("accessKeyId");
    expect(added.data).not.toHaveProperty("secretAccessKey");
    const row = await t.engine.services.db.kysely.selectFrom("storages").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
    expect(row.sealed).toMatch(/^v1\./);
    expect(row.sealed + row.config).not.toContain(S3RVER_KEYS.secretAccessKey);
    expect((await admin("GET", `/api/admin/storages/${id}`)).data).toMatchObject({ id, accessKeyIdSet: true });
    expect((await admin("GET", "/api/admin/storages?search=OBJ")).data.list.map((s: { name: string }) => s.name)).toEqual(["Objects"]);
    expect((await admin("GET", "/api/admin/storages?search=nothing")).data).toMatchObject({ list: [], total: 0 });
  });

  it("refuses bad names, taken names, unknown types and configurations that cannot work", async () => {
    expect((await admin("POST", "/api/admin/storages", s3Body({ name: "objects" }))).code).toBe(ErrorCode.StorageNameExists);
    expect((await admin("POST", "/api/admin/storages", s3Body({ name: "a/b" }))).code).toBe(ErrorCode.StorageNameInvalid);
    expect((await admin("POST", "/api/admin/storages", s3Body({ name: "Other", provider: "ftp" }))).code).toBe(400);
    expect((await admin("POST", "/api/admin/storages", s3Body({ name: "Other", sliceSize: 1024 }))).code).toBe(ErrorCode.InvalidSliceSize);
    expect((await admin("POST", "/api/admin/storages", s3Body({ name: "Other", secretAccessKey: "" }))).code).toBe(ErrorCode.StorageConfigFailed);
    expect((await admin("POST", "/api/admin/storages", s3Body({ name: "Other", path: "../up" }))).code).toBe(ErrorCode.PathFormatError);
    expect((await admin("POST", "/api/admin/storages", { name: "Disk", provider: "local", path: "relative/dir" })).code).toBe(ErrorCode.PathFormatError);
    expect((await admin("GET", "/api/admin/storages/999")).code).toBe(ErrorCode.StorageIdNotExist);
    expect((await admin("GET", "/api/admin/storages")).data.total).toBe(2);
  });

  it("tests a connection by writing, reading back and deleting a probe object; a wrong key or an unreachable endpoint fails", async () => {
    const unsaved = await admin("POST", "/api/admin/storages/test", s3Body({ name: undefined }));
    expect(unsaved.code).toBe(200);
    expect(unsaved.data).toMatchObject({ ok: true });
    const saved = await admin("POST", "/api/admin/storages/test", { id });
    expect(saved.code).toBe(200);
    // The probe is gone again: nothing is left in the bucket under the storage's path.
    expect(await bucketAt("ferry-root").list("/").catch(() => [])).toEqual([]);

    const wrongKey = await admin("POST", "/api/admin/storages/test", { id, accessKeyId: "NOT-THE-KEY" });
    expect(wrongKey.code).toBe(ErrorCode.StorageConnectionFailed);
    const unreachable = await admin("POST", "/api/admin/storages/test", s3Body({ name: undefined, endpoint: "http://127.0.0.1:9" }));
    expect(unreachable.code).toBe(ErrorCode.StorageConnectionFailed);
    const noBucket = await admin("POST", "/api/admin/storages/test", s3Body({ name: undefined, bucket: "no-such-bucket" }));
    expect(noBucket.code).toBe(ErrorCode.StoragePathLost);
    // A local one too: its folder is written to.
    expect((await admin("POST", "/api/admin/storages/test", { id: 1 })).code).toBe(200);
    expect((await admin("POST", "/api/admin/storages/test", { provider: "local", path: `${t.dataDir}/missing-dir` })).code).toBe(ErrorCode.StoragePathLost);
  });

  it("edits a storage, keeping secrets left empty and refusing a wrong one only when used", async () => {
    const edited = await admin("PATCH", `/api/admin/storages/${id}`, { name: "Objects S3", accessKeyId: "", secretAccessKey: "" });
    expect(edited.code).toBe(200);
    expect(edited.data).toMatchObject({ name: "Objects S3", accessKeyIdSet: true, secretAccessKeySet: true });
    // The stored keys still work.
    expect((await admin("POST", "/api/admin/storages/test", { id })).code).toBe(200);
  });

  it("refuses to delete (4005) or move (4006) the default storage, and sets another one as default", async () => {
    expect((await admin("DELETE", "/api/admin/storages/1")).code).toBe(ErrorCode.DefaultStorageUndeletable);
    expect((await admin("PATCH", "/api/admin/storages/1", { provider: "s3" })).code).toBe(ErrorCode.DefaultStorageUnmodifiable);
    expect((await admin("PATCH", "/api/admin/storages/1", { path: "/somewhere/else" })).code).toBe(ErrorCode.DefaultStorageUnmodifiable);
    // Its name and auto-clean settings are not where its files are: they change.
    expect((await admin("PATCH", "/api/admin/storages/1", { name: "Local disk", cleanBy: "modified", cleanAge: "3m" })).data).toMatchObject({ name: "Local disk", cleanBy: "modified", cleanAge: "3m", isDefault: true });

    const made = await admin("PUT", `/api/admin/storages/${id}/default`);
    expect(made.data).toMatchObject({ id, isDefault: true });
    const list = (await admin("GET", "/api/admin/storages")).data.list as { id: number; isDefault: boolean }[];
    expect(list.filter((s) => s.isDefault).map((s) => s.id)).toEqual([id]);
    expect((await admin("PATCH", `/api/admin/storages/${id}`, { bucket: "elsewhere" })).code).toBe(ErrorCode.DefaultStorageUnmodifiable);
    expect((await admin("DELETE", `/api/admin/storages/${id}`)).code).toBe(ErrorCode.DefaultStorageUndeletable);
    // Back to the local one for what follows.
    expect((await admin("PUT", "/api/admin/storages/1/default")).data).toMatchObject({ id: 1, isDefault: true });
  });

  it("deletes an unused storage, and refuses one that holds a home (4620)", async () => {
    const spare = await admin("POST", "/api/admin/storages", { name: "Spare disk", provider: "local", path: `${outside}/spare` });
    expect(spare.code).toBe(200);
    const user = await t.createUser("spareuser", { storageId: spare.data.id });
    expect((await stat(`${outside}/spare/users/spareuser`)).isDirectory()).toBe(true);
    const refused = await admin("DELETE", `/api/admin/storages/${spare.data.id}`);
    expect(refused.code).toBe(ErrorCode.StorageInUse);
    expect(refused.data).toMatchObject({ users: 1, groups: 0, syncTasks: 0 });
    expect((await admin("PATCH", `/api/admin/users/${user.id}`, { storageId: 1 })).code).toBe(200);
    expect((await admin("DELETE", `/api/admin/storages/${spare.data.id}`)).code).toBe(200);
    expect((await admin("GET", `/api/admin/storages/${spare.data.id}`)).code).toBe(ErrorCode.StorageIdNotExist);
    expect((await admin("POST", "/api/admin/users", { account: "ghost", password: "Str0ng#Pass", storageId: spare.data.id })).code).toBe(ErrorCode.StorageIdNotExist);
  });

  it("is closed to users and to callers without a token", async () => {
    const user = await t.createUser("nosy");
    expect((await t.call("GET", "/api/admin/storages", { token: user.token })).body.code).toBe(1008);
    expect((await t.call("POST", "/api/admin/storages/test", { body: { id: 1 } })).body.code).toBe(1009);
  });
});

describe("a group space on the S3 storage, through the file server", () => {
  let files: FileClient;
  let groupId: number;
  let storageId: number;

  beforeAll(async () => {
    storageId = (await admin("GET", "/api/admin/storages?search=objects")).data.list[0].id;
    const group = await admin("POST", "/api/admin/groups", { name: "CloudTeam", storageId });
    expect(group.code).toBe(200);
    expect(group.data).toMatchObject({ home: "/groups/CloudTeam", storageId });
    groupId = group.data.id;
    const user = await t.createUser("clouder", { permission: PERMISSION_FULL });
    expect((await admin("PUT", `/api/admin/groups/${groupId}/members/${user.id}`, { groupPermission: PERMISSION_FULL })).code).toBe(200);
    files = await connectFiles(t.fileUrl, user.socketToken);
    // A file put into the home straight through S3 (uploads into object stores are another part of issue 17).
    const home = bucketAt("ferry-root/groups/CloudTeam");
    const writer = await home.beginWrite("/plan.txt");
    await writer.write(Buffer.from("0123456789 cloud plan"));
    await writer.commit();
  });
  afterAll(async () => {
    await files?.close();
  });

  it("claimed the group's home in the bucket, not on the local disk", async () => {
    expect((await bucketAt("ferry-root/groups").list("/")).map((e) => e.name)).toEqual(["CloudTeam"]);
    await expect(readFile(`${t.dataDir}/storage/groups/CloudTeam`)).rejects.toMatchObject({ code: "ENOENT" });
    expect((await admin("GET", `/api/admin/storages/${storageId}`)).data).toMatchObject({ groups: 1 });
    expect((await admin("DELETE", `/api/admin/storages/${storageId}`)).code).toBe(ErrorCode.StorageInUse);
  });

  it("makes folders, lists, downloads whole and ranged, renames and deletes", async () => {
    expect((await files.cmd("mkdir", { groupId, path: "/", name: "docs" })).code).toBe(200);
    const listed = await files.ok("list", { groupId, path: "/" });
    expect(listed).toMatchObject({ names: ["docs", "plan.txt"], types: [1, 0] });
    expect((await bucketAt("ferry-root/groups/CloudTeam").stat("/docs")).type).toBe("folder");

    const { url } = await files.ok("download", { groupId, paths: ["/plan.txt"] });
    const whole = await fetch(t.fileUrl + url);
    expect(await whole.text()).toBe("0123456789 cloud plan");
    const ranged = await fetch(t.fileUrl + url, { headers: { range: "bytes=2-5" } });
    expect(ranged.status).toBe(206);
    expect(await ranged.text()).toBe("2345");

    const zip = await fetch(t.fileUrl + (await files.ok("download", { groupId, paths: ["/"] })).url);
    expect(zip.status).toBe(200);
    expect(Buffer.from(await zip.arrayBuffer()).includes("0123456789 cloud plan")).toBe(true);

    expect((await files.cmd("rename", { groupId, path: "/plan.txt", newName: "plan-2.txt" })).code).toBe(200);
    expect((await files.cmd("copy", { groupId, paths: ["/plan-2.txt"], target: "/docs" })).code).toBe(200);
    expect((await files.ok("list", { groupId, path: "/docs" })).names).toEqual(["plan-2.txt"]);
    expect((await files.cmd("remove", { groupId, paths: ["/plan-2.txt", "/docs"] })).code).toBe(200);
    expect((await files.ok("list", { groupId, path: "/" })).names).toEqual([]);
    expect(await bucketAt("ferry-root/groups/CloudTeam").list("/")).toEqual([]);
  });

  it("never answered a credential", () => {
    expect(seen.length).toBeGreaterThan(20);
    for (const body of seen) expect(body).not.toContain(S3RVER_KEYS.secretAccessKey);
  });
});

describe("storages: review rules (places apart, places kept while used, the built-in one, fresh homes on a move)", () => {
  const addLocal = (name: string, folder: string) => admin("POST", "/api/admin/storages", { name, provider: "local", path: folder });

  it("refuses a local folder that holds or lies inside the built-in root, the data directory or another local storage (4156), by real paths", async () => {
    expect((await addLocal("In data", `${t.dataDir}/elsewhere`)).code).toBe(ErrorCode.PathFormatError);
    expect((await addLocal("In root", `${t.dataDir}/storage/users`)).code).toBe(ErrorCode.PathFormatError);
    expect((await addLocal("Holds data", path.dirname(t.dataDir))).code).toBe(ErrorCode.PathFormatError);
    expect((await addLocal("Is data", t.dataDir)).code).toBe(ErrorCode.PathFormatError);
    const a = await addLocal("Apart A", `${outside}/a`);
    expect(a.code).toBe(200);
    expect((await addLocal("Inside A", `${outside}/a/inner`)).code).toBe(ErrorCode.PathFormatError);
    expect((await addLocal("Holds A", outside)).code).toBe(ErrorCode.PathFormatError);
    // A link to A's folder is A's folder.
    await symlink(`${outside}/a`, `${outside}/link-to-a`);
    expect((await addLocal("Link to A", `${outside}/link-to-a/x`)).code).toBe(ErrorCode.PathFormatError);
    const b = await addLocal("Apart B", `${outside}/b`);
    expect(b.code).toBe(200);
    // An edit is checked the same way; B may keep its own folder.
    expect((await admin("PATCH", `/api/admin/storages/${b.data.id}`, { path: `${outside}/a/b` })).code).toBe(ErrorCode.PathFormatError);
    expect((await admin("PATCH", `/api/admin/storages/${b.data.id}`, { path: `${t.dataDir}/b` })).code).toBe(ErrorCode.PathFormatError);
    expect((await admin("PATCH", `/api/admin/storages/${b.data.id}`, { name: "Apart B2", path: `${outside}/b` })).code).toBe(200);
    expect((await admin("PATCH", `/api/admin/storages/${b.data.id}`, { path: `${outside}/b-moved` })).code).toBe(200);
    for (const id of [a.data.id, b.data.id]) expect((await admin("DELETE", `/api/admin/storages/${id}`)).code).toBe(200);
  });

  it("keeps where a storage's files are while users, virtual directories or sync tasks use it (4620), and counts sync tasks on delete", async () => {
    const used = await addLocal("Used disk", `${outside}/used`);
    expect(used.code).toBe(200);
    const id = used.data.id as number;
    const user = await t.createUser("placeduser", { storageId: id });
    const moved = await admin("PATCH", `/api/admin/storages/${id}`, { path: `${outside}/used-2` });
    expect(moved.code).toBe(ErrorCode.StorageInUse);
    expect(moved.data).toMatchObject({ users: 1, groups: 0, syncTasks: 0 });
    // Its name is not where its files are.
    expect((await admin("PATCH", `/api/admin/storages/${id}`, { name: "Used disk 2", path: `${outside}/used` })).code).toBe(200);
    // A virtual directory on it counts as well.
    expect((await admin("PATCH", `/api/admin/users/${user.id}`, { storageId: 1 })).code).toBe(200);
    const viewer = await t.createUser("vdiruser", { virtualDirectories: [{ alias: "/Shelf", storageId: id, path: "/shelf" }] });
    expect((await admin("PATCH", `/api/admin/storages/${id}`, { path: `${outside}/used-2` })).code).toBe(ErrorCode.StorageInUse);
    expect((await admin("PATCH", `/api/admin/users/${viewer.id}`, { virtualDirectories: [] })).code).toBe(200);
    // A sync task reading from it.
    const task = await admin("POST", "/api/admin/sync-tasks", { name: "from used", source: { storageId: id, path: "/out" }, target: { storageId: 1, path: "/sync-in" }, frequency: { kind: "manual" } });
    expect(task.code, JSON.stringify(task)).toBe(200);
    const refused = await admin("PATCH", `/api/admin/storages/${id}`, { path: `${outside}/used-2` });
    expect(refused.code).toBe(ErrorCode.StorageInUse);
    expect(refused.data).toMatchObject({ users: 0, groups: 0, syncTasks: 1 });
    const undeletable = await admin("DELETE", `/api/admin/storages/${id}`);
    expect(undeletable.code).toBe(ErrorCode.StorageInUse);
    expect(undeletable.data).toMatchObject({ syncTasks: 1 });
    expect((await admin("DELETE", `/api/admin/sync-tasks/${task.data.id}`)).code).toBe(200);
    expect((await admin("PATCH", `/api/admin/storages/${id}`, { path: `${outside}/used-2` })).code).toBe(200);
    expect((await admin("DELETE", `/api/admin/storages/${id}`)).code).toBe(200);
  });

  it("never deletes the built-in storage (id 1) nor changes its type, even when it is not the default", async () => {
    const other = await addLocal("Stand-in default", `${outside}/stand-in`);
    expect(other.code).toBe(200);
    expect((await admin("PUT", `/api/admin/storages/${other.data.id}/default`)).code).toBe(200);
    try {
      expect((await admin("DELETE", "/api/admin/storages/1")).code).toBe(ErrorCode.InvalidOperation);
      expect((await admin("PATCH", "/api/admin/storages/1", s3Body({ name: undefined }))).code).toBe(ErrorCode.InvalidOperation);
      expect((await admin("PATCH", "/api/admin/storages/1", { path: `${outside}/elsewhere` })).code).toBe(ErrorCode.InvalidOperation);
      expect((await admin("GET", "/api/admin/storages/1")).data).toMatchObject({ provider: "local", builtin: true, path: `${t.dataDir}/storage` });
    } finally {
      expect((await admin("PUT", "/api/admin/storages/1/default")).code).toBe(200);
    }
    expect((await admin("DELETE", `/api/admin/storages/${other.data.id}`)).code).toBe(200);
  });

  it("moving a user or a group to another storage without a home claims a fresh one there, never a folder that is there", async () => {
    const target = await addLocal("Move target", `${outside}/target`);
    expect(target.code).toBe(200);
    const id = target.data.id as number;
    // Folders left on the target under the names the user and the group would get.
    await mkdir(`${outside}/target/users/mover`, { recursive: true });
    await mkdir(`${outside}/target/groups/Movers`, { recursive: true });
    const user = await t.createUser("mover");
    const movedUser = await admin("PATCH", `/api/admin/users/${user.id}`, { storageId: id });
    expect(movedUser.code).toBe(200);
    expect(movedUser.data.storageId).toBe(id);
    expect(movedUser.data.home).toMatch(/^\/users\/mover\.[0-9a-f]{8}$/);
    expect((await stat(`${outside}/target${movedUser.data.home}`)).isDirectory()).toBe(true);

    const group = await admin("POST", "/api/admin/groups", { name: "Movers" });
    expect(group.code).toBe(200);
    const movedGroup = await admin("PATCH", `/api/admin/groups/${group.data.id}`, { storageId: id });
    expect(movedGroup.code).toBe(200);
    expect(movedGroup.data).toMatchObject({ storageId: id });
    expect(movedGroup.data.home).toMatch(/^\/groups\/Movers\.[0-9a-f]{8}$/);
    // A home named with the move is taken as named.
    const named = await admin("PATCH", `/api/admin/groups/${group.data.id}`, { storageId: 1, home: "/groups/Movers-named" });
    expect(named.data).toMatchObject({ storageId: 1, home: "/groups/Movers-named" });
  });

  it("a connection test with another endpoint does not send the stored keys; link-local endpoints are refused", async () => {
    const id = (await admin("GET", "/api/admin/storages?search=objects")).data.list[0].id as number;
    // The same server by another name: the stored keys would work, but they are not filled in.
    const elsewhere = s3.endpoint.replace("127.0.0.1", "localhost");
    expect(elsewhere).not.toBe(s3.endpoint);
    expect((await admin("POST", "/api/admin/storages/test", { id, endpoint: elsewhere })).code).not.toBe(200);
    expect((await admin("POST", "/api/admin/storages/test", { id, endpoint: elsewhere, ...S3RVER_KEYS })).code).toBe(200);
    for (const endpoint of ["http://169.254.169.254", "http://[fe80::1]:9000", "http://metadata.google.internal"]) {
      expect((await admin("POST", "/api/admin/storages/test", s3Body({ name: undefined, endpoint }))).code).toBe(ErrorCode.StorageConfigFailed);
      expect((await admin("POST", "/api/admin/storages", s3Body({ name: "Metadata", endpoint }))).code).toBe(ErrorCode.StorageConfigFailed);
    }
  });

  it("a connection test refuses an endpoint whose name resolves to a link-local address when it connects, also after the name changed (DNS rebinding)", async () => {
    // A name s3rver takes for path-style requests, resolved here by the engine's own dns.lookup (stood in for).
    const name = "s3.amazonaws.com";
    let answer = ["127.0.0.1"];
    const asked: string[] = [];
    const system = dns.lookup.bind(dns);
    type Callback = (err: Error | null, address: string | dns.LookupAddress[], family?: number) => void;
    const stand = vi.spyOn(dns, "lookup").mockImplementation(((hostname: string, options: dns.LookupOptions, callback: Callback) => {
      if (hostname !== name) return (system as (...args: unknown[]) => void)(hostname, options, callback);
      asked.push(hostname);
      const addresses = answer.map((address) => ({ address, family: 4 }));
      if (options.all) callback(null, addresses);
      else callback(null, addresses[0]!.address, 4);
    }) as unknown as typeof dns.lookup);
    try {
      const endpoint = s3.endpoint.replace("127.0.0.1", name);
      expect((await admin("POST", "/api/admin/storages/test", s3Body({ name: undefined, endpoint }))).code).toBe(200);
      expect(asked).toContain(name);
      // The loopback address first: a connection that took the first address would still reach s3rver
      // (and none is ever made to the metadata address), but a name that also leads there is refused.
      answer = ["127.0.0.1", "169.254.169.254"];
      const refused = await admin("POST", "/api/admin/storages/test", s3Body({ name: undefined, endpoint }));
      expect(refused.code).toBe(ErrorCode.StorageConnectionFailed);
      expect(JSON.stringify(refused)).not.toContain("169.254");
    } finally {
      stand.mockRestore();
    }
  });
});
