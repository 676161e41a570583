import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Page } from "@playwright/test";
import { blake3 } from "hash-wasm";
import { PERMISSION_DEFAULT, PERMISSION_FULL } from "../../contract/permissions";
import { adminToken, createUser, login, ok, uniqueAccount } from "../support/e2e-helpers";
import { E2E_FILE_PORT } from "../support/e2e-env";
import { connectFiles } from "../support/file-client";
import { auditPage } from "./admin-console";
import { expect, hydrated, openTransfers, screenshot, signIn, test, transferPanel } from "./fixtures";

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

const SCREENS = "/tmp/ferry/screens/transfers";
/** The screenshot beside the run's own, copied to the shared screens folder. */
async function shoot(page: Page, name: string) {
  await screenshot(page, name);
  mkdirSync(SCREENS, { recursive: true });
  copyFileSync(path.join("test-results", "screens", `${name}.png`), path.join(SCREENS, `${name}.png`));
}

/** A folder of `count` small files named `prefix-0.txt` …; returns its path and the file names. */
function smallFolder(folder: string, count: number) {
  mkdirSync(path.join(workDir, folder), { recursive: true });
  const names = Array.from({ length: count }, (_v, i) => `${folder}-${i}.txt`);
  for (const name of names) writeFileSync(path.join(workDir, folder, name), `${name} `.repeat(200));
  return { dir: path.join(workDir, folder), names };
}

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

test("a batch the proxy answers 502 after the engine placed its files is not sent again: the page asks which landed, and every file lands once", async ({ page }) => {
  test.setTimeout(120_000);
  const account = uniqueAccount("proxy502");
  await createUser(account, PASSWORD, { permission: PERMISSION_FULL });
  const socketToken = (await login(account, PASSWORD)).data!.websocket_token;
  const { dir, names } = smallFolder("gateway", 6);
  // Every file the page puts in a batch's header, and one batch's answer replaced by a proxy's 502 page
  // once the engine has placed its files.
  const sentPaths: string[] = [];
  let broken = 0;
  await page.route(
    (url) => url.port === String(E2E_FILE_PORT) && url.pathname === "/uploads/batch",
    async (route) => {
      const request = route.request();
      if (request.method() !== "POST") return route.continue();
      const body = request.postDataBuffer()!;
      const header = JSON.parse(body.subarray(4, 4 + body.readUInt32BE(0)).toString("utf8")) as { files: { path: string }[] };
      sentPaths.push(...header.files.map((file) => file.path));
      const response = await route.fetch();
      if (broken > 0) return route.fulfill({ response });
      broken += 1;
      return route.fulfill({ response, status: 502, contentType: "text/html", body: "<html><body><h1>502 Bad Gateway</h1></body></html>" });
    },
  );
  await signIn(page, account, PASSWORD);
  await expect(page).toHaveURL(/\/personal$/);
  await hydrated(page);

  await page.getByLabel("Upload folder").setInputFiles(dir);
  await expect(transferPanel(page)).toContainText("6 done", { timeout: 60_000 });
  await openTransfers(page);
  const group = panelRow(page, "gateway (6 files)");
  await expect(group).toContainText("6 of 6 uploaded");
  await expect(transferPanel(page).getByRole("listitem").filter({ hasText: "Upload failed" })).toHaveCount(0);
  await expect(group.getByRole("button", { name: "Retry gateway (6 files)" })).toHaveCount(0);
  await shoot(page, "batch-after-502-en");
  await auditPage(page, "the transfer panel after a batch answered 502 (en)");
  expect(broken).toBe(1);
  // Each file went up once: the batch answered 502 was not sent again (its files had landed).
  expect([...sentPaths].sort()).toEqual(names.map((name) => `/gateway/${name}`).sort());
  const files = await connectFiles(FILE_URL, socketToken);
  try {
    expect((await files.ok("list", { groupId: 0, path: "/gateway" })).names.sort()).toEqual([...names].sort());
  } finally {
    await files.close();
  }
});

test("an upload that fails in the tab running it shows that failure in another tab, which follows it when it is removed (en, zh)", async ({ page }) => {
  test.setTimeout(120_000);
  const account = uniqueAccount("twotabs");
  // 256 KB/s for the user: the upload of 3 MiB is still running when the second tab opens.
  const user = await createUser(account, PASSWORD, { permission: PERMISSION_FULL, maxUploadSpeed: 256 });
  const file = path.join(workDir, "report.bin");
  writeFileSync(file, Buffer.alloc(3 * 1024 * 1024, 7));
  await signIn(page, account, PASSWORD);
  await expect(page).toHaveURL(/\/personal$/);
  await hydrated(page);
  await page.getByLabel("Upload files").setInputFiles(file);
  const first = panelRow(page, "report.bin");
  await expect(first.getByRole("button", { name: "Pause report.bin" })).toBeVisible();

  // A second tab of the same browser shows the upload as running in the first.
  const second = await page.context().newPage();
  await second.goto("/personal");
  await hydrated(second);
  await openTransfers(second);
  const row = panelRow(second, "report.bin");
  await expect(row).toContainText("Running in another tab of this browser");

  // The administrator takes the Upload permission away: the first tab's upload fails, and the second follows.
  await ok("PATCH", `/api/admin/users/${user.id}`, { token: await adminToken(), body: { permission: PERMISSION_DEFAULT } });
  await expect(first).toContainText("Upload failed: Permission denied", { timeout: 60_000 });
  await expect(row).toContainText("Failed in another tab of this browser: Permission denied");
  await expect(row).not.toContainText("Running in another tab");
  await expect(row.getByRole("button")).toHaveCount(0);
  await shoot(second, "other-tab-failed-en");
  await auditPage(second, "the transfer panel with an upload that failed in another tab (en)");

  // Opened again in Chinese, the second tab reads the failure the first saved.
  await second.getByRole("button", { name: "Switch the language to Chinese" }).click();
  await expect(second.locator("html")).toHaveAttribute("lang", "zh");
  await hydrated(second);
  await openTransfers(second);
  const zhRow = panelRow(second, "report.bin");
  await expect(zhRow).toContainText("在此浏览器的另一个标签页中失败：权限不足");
  await expect(zhRow.getByRole("button")).toHaveCount(0);
  await shoot(second, "other-tab-failed-zh");
  await auditPage(second, "the transfer panel with an upload that failed in another tab (zh)");

  // The first tab removes it: it leaves the second tab's list too.
  await first.getByRole("button", { name: "Remove report.bin from the list" }).click();
  await expect(zhRow).toHaveCount(0);
});
