import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Page } from "@playwright/test";
import { blake3 } from "hash-wasm";
import { PERMISSION_FULL } from "../../contract/permissions";
import { adminToken, createUser, login, ok, uniqueAccount } from "../support/e2e-helpers";
import { E2E_FILE_PORT } from "../support/e2e-env";
import { connectFiles } from "../support/file-client";
import { auditPage } from "./admin-console";
import { expect, hydrated, screenshot, signIn, test, transferPanel } from "./fixtures";

/**
 * Issue 16, many small files: a folder of small files goes up in a few `POST /uploads/batch`
 * requests (docs/web.md, "Small files in batches"), not one tus creation, body and commit per
 * file. One file the engine refuses (a forbidden path of the user: the page cannot know it, the
 * engine answers 1008 for that file alone) fails on its own row with its own message; the others land.
 */

const PASSWORD = "B4tch#Ferry2026";
const FILE_URL = `http://127.0.0.1:${E2E_FILE_PORT}`;
const workDir = mkdtempSync(path.join(tmpdir(), "ferry-batch-"));
const FILES = 200;
const REFUSED = "secret-042.txt";
const nameOf = (i: number) => (i === 42 ? REFUSED : `note-${String(i).padStart(3, "0")}.txt`);
const contentOf = (i: number) => `small file ${i} `.repeat(150);

function makeFolder(folder: string) {
  mkdirSync(path.join(workDir, folder), { recursive: true });
  for (let i = 0; i < FILES; i += 1) writeFileSync(path.join(workDir, folder, nameOf(i)), contentOf(i));
  return path.join(workDir, folder);
}

async function stored(socketToken: string, folder: string) {
  const files = await connectFiles(FILE_URL, socketToken);
  try {
    const names = (await files.ok("list", { groupId: 0, path: folder })).names.sort();
    const sample = await files.ok("attributes", { groupId: 0, paths: [`${folder}/${nameOf(7)}`] });
    return { names, sampleHash: sample.hash };
  } finally {
    await files.close();
  }
}

async function setUploadSpeed(kbPerSecond: number) {
  await ok("PATCH", "/api/admin/settings/speed", { token: await adminToken(), body: { maxUploadSpeed: kbPerSecond } });
}

/** Requests the page sends to the file server's upload endpoints, by kind. */
function countUploads(page: Page) {
  const counts = { batches: 0, tus: 0 };
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (url.port !== String(E2E_FILE_PORT) || !url.pathname.startsWith("/uploads")) return;
    if (url.pathname === "/uploads/batch") counts.batches += 1;
    else counts.tus += 1;
  });
  return counts;
}

const panelRow = (page: Page, name: string | RegExp) => transferPanel(page).getByRole("listitem", { name });

test("a folder of 200 small files goes up in a few batch requests; the one the engine refuses says why on its own row, the rest land (en, zh)", async ({ page }) => {
  test.setTimeout(120_000);
  const account = uniqueAccount("batcher");
  await createUser(account, PASSWORD, { permission: PERMISSION_FULL, forbiddenPaths: [`/many/${REFUSED}`, `/zh/${REFUSED}`] });
  await signIn(page, account, PASSWORD);
  await expect(page).toHaveURL(/\/personal$/);
  await hydrated(page);
  const socketToken = (await login(account, PASSWORD)).data!.websocket_token;
  const folder = makeFolder("many");
  const counts = countUploads(page);

  // Slowed down so the panel can be seen while the batches run (the bytes of all files: about 600 KB).
  await setUploadSpeed(150);
  try {
    await page.getByLabel("Upload folder").setInputFiles(folder);
    const group = panelRow(page, "many (200 files)");
    await expect(group.getByRole("progressbar")).toBeVisible();
    await expect(group).toContainText(/ of 200 uploaded/);
    await screenshot(page, "upload-batch-running-en");
    await auditPage(page, "the transfer panel during a batched folder upload (en)");
    await expect(group).toContainText("199 of 200 uploaded, 1 refused", { timeout: 60_000 });
  } finally {
    await setUploadSpeed(0);
  }

  // The refused file's own row says why, in the page's language; the others are uploaded.
  const refused = panelRow(page, REFUSED);
  await expect(refused).toContainText("Upload failed: Permission denied");
  await expect(panelRow(page, nameOf(199))).toContainText("Uploaded");
  await expect(summary(page)).toContainText("Finished");

  // Far fewer requests than files: no tus upload at all, a handful of batches.
  expect(counts.tus).toBe(0);
  expect(counts.batches).toBeGreaterThanOrEqual(1);
  expect(counts.batches).toBeLessThanOrEqual(FILES / 20);

  const { names, sampleHash } = await stored(socketToken, "/many");
  expect(names).toHaveLength(FILES - 1);
  expect(names).not.toContain(REFUSED);
  expect(names).toContain(nameOf(0));
  expect(names).toContain(nameOf(199));
  expect(sampleHash).toBe(await blake3(contentOf(7)));
  // The listing on the page holds the folder.
  await expect(page.getByRole("table").getByText("many", { exact: true })).toBeVisible();

  // The refusal comes first under its batch's summary, without scrolling through 200 rows.
  await expect(transferPanel(page).getByRole("listitem").nth(1)).toHaveAccessibleName(REFUSED);
  await screenshot(page, "upload-batch-refused-en");
  await auditPage(page, "the transfer panel after a batched folder upload with a refusal (en)");

  // The same in Chinese (switching the language loads the page again: a new folder is uploaded there).
  await page.getByRole("button", { name: "Switch the language to Chinese" }).click();
  await hydrated(page);
  await page.getByLabel("上传文件夹").setInputFiles(makeFolder("zh"));
  const zhGroup = panelRow(page, "zh（200 个文件）");
  await expect(zhGroup).toContainText("已上传 199/200 个，1 个被拒绝", { timeout: 60_000 });
  await expect(zhGroup).toContainText("已结束");
  await expect(panelRow(page, REFUSED)).toContainText("上传失败: 权限不足");
  expect((await stored(socketToken, "/zh")).names).toHaveLength(FILES - 1);
  await screenshot(page, "upload-batch-refused-zh");
  await auditPage(page, "the transfer panel after a batched folder upload with a refusal (zh)");
});

const summary = (page: Page) => panelRow(page, /^(many \(200 files\)|many（200 个文件）)$/);
