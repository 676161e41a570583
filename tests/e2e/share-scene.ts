import type { Browser, BrowserContext, BrowserContextOptions, Download, Page } from "@playwright/test";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { PERMISSION_FULL } from "../../contract/permissions";
import type { ShareCreateBody } from "../../contract/share";
import { E2E_FILE_PORT } from "../support/e2e-env";
import { createUser, login, ok, uniqueAccount, WEB_URL } from "../support/e2e-helpers";
import { connectFiles, type FileClient } from "../support/file-client";
import { blake3Hex, tusClient } from "../support/tus-client";
import { expect } from "./fixtures";

/**
 * Scenes for the share-page specs (not a spec itself): an owner with real files made through the
 * engine, links made through its REST API, and visitors as fresh browser contexts.
 */

export const FILE_URL = `http://127.0.0.1:${E2E_FILE_PORT}`;
export const OWNER_PASSWORD = "Share#Scene2026";

export interface Owner {
  id: number;
  account: string;
  token: string;
  files: FileClient;
  socketToken: string;
}

export const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

export async function owner(prefix = "sharer"): Promise<Owner> {
  const account = uniqueAccount(prefix);
  const { id } = await createUser(account, OWNER_PASSWORD, { permission: PERMISSION_FULL });
  const signedIn = await login(account, OWNER_PASSWORD);
  const socketToken = signedIn.data!.websocket_token;
  return { id, account, token: signedIn.data!.token, socketToken, files: await connectFiles(FILE_URL, socketToken) };
}

/** Puts a file into the owner's personal space as a browser does: tus upload, then commit with its hash. */
export async function seedFile(o: Owner, filePath: string, bytes: Uint8Array, groupId = 0) {
  const created = await tusClient(FILE_URL, o.socketToken).create({ groupId: String(groupId), path: filePath }, bytes.length, bytes);
  expect(created.id, created.text).toBeTruthy();
  await o.files.ok("commit", { uploadId: created.id!, hash: await blake3Hex(bytes) });
}

export async function createLink(o: Owner, body: ShareCreateBody): Promise<{ shareUrl: string; shareId: string }> {
  return ok<{ shareUrl: string; shareId: string }>("POST", "/api/share/link/create", { token: o.token, body: { shareBaseUrl: WEB_URL, ...body } });
}

export async function downloadedBytes(download: Download): Promise<Uint8Array> {
  return new Uint8Array(readFileSync(await download.path()));
}

export async function downloadCount(o: Owner, shareId: string): Promise<number> {
  return (await ok<{ count: number }>("GET", `/api/share/link/download/count?sid=${shareId}`, { token: o.token })).count;
}

/** Switches the page to Chinese with the top bar's language switch, as a visitor does. */
export async function toChinese(page: Page) {
  await page.getByRole("button", { name: "Switch the language to Chinese" }).click();
  await expect(page.locator("html")).toHaveAttribute("lang", "zh");
}

/** A fresh browser context (a new visitor); fails on any uncaught error of its page. */
export async function withContext<T>(browser: Browser, options: BrowserContextOptions, run: (context: BrowserContext, page: Page) => Promise<T>): Promise<T> {
  const context = await browser.newContext({ acceptDownloads: true, ...options });
  try {
    const page = await context.newPage();
    const errors: Error[] = [];
    page.on("pageerror", (error) => errors.push(error));
    const result = await run(context, page);
    expect(errors.map((e) => e.message), "uncaught errors in the page").toEqual([]);
    return result;
  } finally {
    await context.close();
  }
}
