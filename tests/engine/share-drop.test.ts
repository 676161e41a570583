import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { listingEntries } from "../../contract/files";
import { PERMISSION_FULL } from "../../contract/permissions";
import { startTestEngine, type TestEngine } from "../support/engine";
import type { FileClient } from "../support/file-client";
import { connectVisitor, makeLink, SHARE_ENV, shareTokenOf, writeTree, type MadeLink } from "../support/share-visitor";
import { blake3Hex, tusClient } from "../support/tus-client";
import path from "node:path";

/**
 * Upload invitations are file drops by default (docs/shares.md, "File drops"): a visit (one share
 * token) lists only what it uploaded or created, never what the owner or other visitors left in
 * the folder; the owner may make an invitation show the folder's contents instead.
 */
vi.setConfig({ testTimeout: 90_000, hookTimeout: 120_000 });

let t: TestEngine;
let ownerToken: string;
let drop: MadeLink;
let shown: MadeLink;
const clients: FileClient[] = [];

beforeAll(async () => {
  t = await startTestEngine(SHARE_ENV);
  const owner = await t.createUser("drop_owner", { permission: PERMISSION_FULL });
  ownerToken = owner.token;
  await writeTree(path.join(t.dataDir, "storage", "users", "drop_owner"), {
    "inbox/salaries.xlsx": "secret",
    "inbox/private/contract.pdf": "secret too",
  });
  drop = await makeLink(t, owner.token, { shareUrlType: 0, shareServerPath: "/inbox", needPassword: true, shareUrlPasswd: "dr" });
  shown = await makeLink(t, owner.token, { shareUrlType: 0, shareServerPath: "/inbox", needPassword: true, shareUrlPasswd: "sh", shareShowContents: 1 });
});
afterAll(async () => {
  for (const c of clients) await c.close();
  await t?.stop();
});

async function visit(link: MadeLink) {
  const token = await shareTokenOf(t, link);
  const client = await connectVisitor(t.fileUrl, token);
  clients.push(client);
  return { token, client };
}

async function upload(client: FileClient, shareToken: string, target: string, text: string) {
  const data = Buffer.from(text);
  const created = await tusClient(t.fileUrl, shareToken).create({ groupId: "0", path: target }, data.length, data);
  expect(created.status, created.text).toBe(201);
  return client.ok("commit", { uploadId: created.id!, hash: await blake3Hex(data) });
}

const names = async (client: FileClient, folder: string) => listingEntries(await client.ok("list", { groupId: 0, path: folder })).map((e) => e.name).sort();

describe("a file-drop invitation", () => {
  it("is the default, and the owner's list and the visitor's info say which kind an invitation is", async () => {
    const list = await t.call("GET", "/api/share/link/list?shareUrlType=0&pageSize=100", { token: ownerToken });
    const items = (list.body.data as { sharelinkinfo: { shareId: string; shareShowContents: number }[] }).sharelinkinfo;
    expect(items.find((i) => i.shareId === drop.shareId)?.shareShowContents).toBe(0);
    expect(items.find((i) => i.shareId === shown.shareId)?.shareShowContents).toBe(1);
    const info = await t.call("GET", `/api/share/link/info?${new URLSearchParams({ url: drop.shareUrl, passwd: "dr", fingerprint: "fp" })}`);
    expect(info.body.data).toMatchObject({ shareShowContents: 0 });
  });

  it("shows a visit none of the files already there, over the socket and over REST", async () => {
    const { token, client } = await visit(drop);
    expect(await names(client, "/")).toEqual([]);
    // A folder the visit did not make is as absent as a missing one.
    expect((await client.cmd("list", { groupId: 0, path: "/private" })).code).toBe(1043);
    const rest = await t.call("GET", "/api/share/files/list?path=%2F", { token });
    expect(rest.body).toMatchObject({ code: 200, data: { names: [] } });
    expect((await t.call("GET", "/api/share/files/list?path=%2Fprivate", { token })).body.code).toBe(1043);
  });

  it("shows a visit what it uploaded and created, and the folders on the way, nothing of their other contents", async () => {
    const { token, client } = await visit(drop);
    await upload(client, token, "/mine.txt", "mine");
    expect(await client.ok("mkdir", { groupId: 0, path: "/", name: "album" })).toEqual({ path: "/album" });
    await upload(client, token, "/private/answer.txt", "into an existing folder");
    expect(await names(client, "/")).toEqual(["album", "mine.txt", "private"]);
    expect(await names(client, "/private")).toEqual(["answer.txt"]);
    expect(await names(client, "/album")).toEqual([]);
    const rest = await t.call("GET", "/api/share/files/list?path=%2Fprivate", { token });
    expect(rest.body).toMatchObject({ code: 200, data: { names: ["answer.txt"] } });

    // Another visit of the same link sees none of it.
    const other = await visit(drop);
    expect(await names(other.client, "/")).toEqual([]);
    expect((await other.client.cmd("list", { groupId: 0, path: "/album" })).code).toBe(1043);
  });

  it("an invitation that shows its folder lists everything there", async () => {
    const { client } = await visit(shown);
    expect(await names(client, "/")).toEqual(expect.arrayContaining(["private", "salaries.xlsx", "mine.txt", "album"]));
    expect(await names(client, "/private")).toEqual(expect.arrayContaining(["contract.pdf", "answer.txt"]));
  });

  it("a download link ignores the option", async () => {
    const link = await makeLink(t, ownerToken, { shareUrlType: 1, shareFiles: ["/inbox/salaries.xlsx"], needPassword: false, shareUrlPasswd: "", shareShowContents: 1 });
    const list = await t.call("GET", "/api/share/link/list?shareUrlType=1&pageSize=100", { token: ownerToken });
    const item = (list.body.data as { sharelinkinfo: { shareId: string; shareShowContents: number }[] }).sharelinkinfo.find((i) => i.shareId === link.shareId);
    expect(item?.shareShowContents).toBe(0);
  });
});
