import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { TestEngine } from "./engine";
import { connectFiles, type FileClient } from "./file-client";

/**
 * Share links as a visitor meets them (docs/file-server.md, "Share visitors"), for the
 * share-access engine tests: links are made with the owner's REST calls (docs/shares.md), the
 * share token comes from `GET /api/share/link/info`, and the visitor logs in to the file server's
 * socket with `{ shareToken }`.
 */

export const SHARE_BASE = "https://files.example.com";
export const FINGERPRINT = "fp-visitor";
/** Engine settings the share tests start with: links are made for this web address. */
export const SHARE_ENV = { FERRY_WEB_ORIGINS: SHARE_BASE };

export interface MadeLink {
  shareUrl: string;
  shareId: string;
  sharePassword: string;
}

/** Creates a link (download link by default) as `ownerToken`; fails the test on any other answer. */
export async function makeLink(t: TestEngine, ownerToken: string, body: Record<string, unknown>): Promise<MadeLink> {
  const reply = await t.call("POST", "/api/share/link/create", { token: ownerToken, body: { shareBaseUrl: SHARE_BASE, shareUrlType: 1, ...body } });
  if (reply.body.code !== 200) throw new Error(`create link ${JSON.stringify(body)} → ${JSON.stringify(reply.body)}`);
  return reply.body.data as MadeLink;
}

/** The share token of a link (with its password when it has one). */
export async function shareTokenOf(t: TestEngine, link: MadeLink): Promise<string> {
  const params = new URLSearchParams({ url: link.shareUrl, fingerprint: FINGERPRINT, ...(link.sharePassword ? { passwd: link.sharePassword } : {}) });
  const reply = await t.call("GET", `/api/share/link/info?${params}`);
  if (reply.body.code !== 200) throw new Error(`share info → ${JSON.stringify(reply.body)}`);
  return (reply.body.data as { token: string }).token;
}

/** A socket logged in as a visitor of the share token. */
export async function connectVisitor(fileUrl: string, shareToken: string, headers: Record<string, string> = {}): Promise<FileClient> {
  const client = await connectFiles(fileUrl, null, headers);
  const login = await client.cmd("login", { shareToken });
  if (login.code !== 200) throw new Error(`share login failed: ${login.code} ${login.message}`);
  return client;
}

/** Writes files (and their folders) into a home on disk, as an administrator would. */
export async function writeTree(home: string, files: Record<string, string | Uint8Array>): Promise<void> {
  for (const [rel, data] of Object.entries(files)) {
    const file = path.join(home, rel);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, data);
  }
}

/** Resolves when the socket is closed; its close code. */
export function closed(client: FileClient): Promise<number> {
  return new Promise((resolve) => {
    if (client.socket.readyState === client.socket.CLOSED) return resolve(-1);
    client.socket.once("close", (code) => resolve(code));
  });
}

/**
 * Downloads a selection of a share through the file server, as the visitor's page does: a signed
 * URL from `POST /api/share/files/download`, then the URL itself. The file server counts it.
 */
export async function downloadShared(t: TestEngine, shareToken: string, paths: string[], headers: Record<string, string> = {}): Promise<{ code: number; body?: Buffer }> {
  const ticket = await t.call("POST", "/api/share/files/download", { token: shareToken, body: { paths } });
  if (ticket.body.code !== 200) return { code: ticket.body.code };
  const res = await fetch(t.fileUrl + (ticket.body.data as { url: string }).url, { headers });
  return { code: res.status === 200 ? 200 : res.status, body: Buffer.from(await res.arrayBuffer()) };
}
