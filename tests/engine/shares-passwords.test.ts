import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { PERMISSION_FULL } from "../../contract/permissions";
import { startTestEngine, type TestEngine } from "../support/engine";
import { makeLink, SHARE_BASE, writeTree } from "../support/share-visitor";

/**
 * Share passwords at rest (issue 12, docs/security.md section 6): the database holds them sealed
 * with the engine secret, never in clear; only the link's owner sees one again; the password check
 * opens the sealed value and compares in constant time.
 */
vi.setConfig({ testTimeout: 90_000, hookTimeout: 120_000 });

let t: TestEngine;
type User = Awaited<ReturnType<TestEngine["createUser"]>>;
let owner: User;
let other: User;
const PASSWORDS = ["Kq7w", "zZ9#", "密码12", "Ŧx"];

const ip = (address: string) => ({ "x-forwarded-for": address });
const linkRow = (id: string) => t.engine.services.db.kysely.selectFrom("share_links").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
const info = (url: string, passwd?: string) =>
  t.call("GET", `/api/share/link/info?${new URLSearchParams({ url, ...(passwd === undefined ? {} : { passwd }) })}`, { headers: ip("10.30.0.1") });

beforeAll(async () => {
  t = await startTestEngine({ FERRY_TRUSTED_PROXIES: "127.0.0.1", FERRY_WEB_ORIGINS: SHARE_BASE });
  owner = await t.createUser("pw_owner", { permission: PERMISSION_FULL });
  other = await t.createUser("pw_other", { permission: PERMISSION_FULL });
  await writeTree(path.join(t.dataDir, "storage", "users", "pw_owner"), { "f.txt": "f", "drop/.keep": "" });
});
afterAll(() => t?.stop());

describe("share passwords at rest", () => {
  it("are never in the database in clear; the owner sees them, the administrator, other users and visitors never", async () => {
    const admin = await t.adminToken();
    for (const password of PASSWORDS) {
      const made = await makeLink(t, owner.token, { shareFiles: ["/f.txt"], needPassword: true, shareUrlPasswd: password });
      expect(made.sharePassword).toBe(password);
      const row = await linkRow(made.shareId);
      expect(row.password).toBe("");
      expect(row.password_enc).toMatch(/^v1\./);
      expect(JSON.stringify(row)).not.toContain(password);

      // The owner's list shows it.
      const mine = (await t.call("GET", "/api/share/link/list?pageSize=100", { token: owner.token })).body.data.sharelinkinfo as { shareId: string; sharePassword: string }[];
      expect(mine.find((l) => l.shareId === made.shareId)!.sharePassword).toBe(password);
      // The administrator's list and detail do not.
      const adminList = await t.call("GET", "/api/admin/shares?pageSize=100", { token: admin });
      expect(adminList.body.data.list.find((l: { shareId: string }) => l.shareId === made.shareId)).toMatchObject({ sharePassword: "", needPassword: true });
      const detail = await t.call("GET", `/api/admin/shares/${made.shareId}`, { token: admin });
      expect(detail.body.data).toMatchObject({ sharePassword: "", needPassword: true });
      // Another user's list does not hold the link at all.
      const theirs = await t.call("GET", "/api/share/link/list?pageSize=100", { token: other.token });
      expect(JSON.stringify(theirs.body)).not.toContain(made.shareId);
      // Visitors: verify and info never carry a stored password.
      const verified = await t.call("POST", "/api/share/link/verify/url", { body: { url: made.shareUrl, fingerprint: "fp" }, headers: ip("10.30.0.2") });
      expect(verified.body.code).toBe(200);
      expect(JSON.stringify(verified.body)).not.toContain(`"${password}"`);
      expect((await info(made.shareUrl)).body.code).toBe(1006);

      // The check still works on the sealed value: right (whitespace ignored) and wrong.
      expect((await info(made.shareUrl, `wrong${password}`)).body.code).toBe(1005);
      const spaced = `${password.slice(0, 1)} ${password.slice(1)}`;
      const right = await info(made.shareUrl, spaced);
      expect(right.body).toMatchObject({ code: 200, data: { sharePasswd: password } });
      for (const text of [JSON.stringify(adminList.body), JSON.stringify(detail.body)]) expect(text).not.toContain(`"sharePassword":"${password}"`);
    }
  });

  it("invitations too, and a link without a password stores none", async () => {
    const invite = await makeLink(t, owner.token, { shareUrlType: 0, shareServerPath: "/drop", needPassword: true, shareUrlPasswd: "Dr0p" });
    expect((await linkRow(invite.shareId)).password).toBe("");
    expect((await linkRow(invite.shareId)).password_enc).not.toContain("Dr0p");
    const invites = (await t.call("GET", "/api/share/link/list?shareUrlType=0", { token: owner.token })).body.data.sharelinkinfo;
    expect(invites[0]).toMatchObject({ sharePassword: "Dr0p" });
    const plain = await makeLink(t, owner.token, { shareFiles: ["/f.txt"] });
    expect(await linkRow(plain.shareId)).toMatchObject({ password: "", password_enc: "", need_password: 0 });
  });

  it("seals the clear passwords of links made before (as the engine does at start), and they keep working", async () => {
    const made = await makeLink(t, owner.token, { shareFiles: ["/f.txt"], needPassword: true, shareUrlPasswd: "Old1" });
    // A row as an older engine left it.
    const k = t.engine.services.db.kysely;
    await k.updateTable("share_links").set({ password: "Old1", password_enc: "" }).where("id", "=", made.shareId).execute();
    expect(await t.engine.services.shares.sealStoredPasswords()).toBeGreaterThanOrEqual(1);
    const row = await linkRow(made.shareId);
    expect(row.password).toBe("");
    expect(row.password_enc).toMatch(/^v1\./);
    expect(row.password_enc).not.toContain("Old1");
    expect((await k.selectFrom("share_links").select("id").where("password", "!=", "").execute()).length).toBe(0);
    expect((await info(made.shareUrl, "Old1")).body.code).toBe(200);
    expect((await info(made.shareUrl, "Old2")).body.code).toBe(1005);
    // A sealed value is bound to its link: copied onto another link it opens nothing.
    const second = await makeLink(t, owner.token, { shareFiles: ["/f.txt"], needPassword: true, shareUrlPasswd: "New2" });
    await k.updateTable("share_links").set({ password_enc: row.password_enc }).where("id", "=", second.shareId).execute();
    expect((await info(second.shareUrl, "Old1")).body.code).toBe(1005);
    expect((await info(second.shareUrl, "New2")).body.code).toBe(1005);
  });
});
