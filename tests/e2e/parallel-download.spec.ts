import type { Page, Request } from "@playwright/test";
import { createHash, randomBytes } from "node:crypto";
import { copyFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import { chunkSizeFor } from "../../app/transfers/page-download";
import { PERMISSION_FULL } from "../../contract/permissions";
import { E2E_FILE_PORT } from "../support/e2e-env";
import { adminToken, createUser, login, ok, uniqueAccount } from "../support/e2e-helpers";
import { connectFiles } from "../support/file-client";
import { expect, hydrated, openTransfers, screenshot, seedFile, seriousViolations, signIn, test, transferPanel } from "./fixtures";

/**
 * Issue 16, "Parallel, resumable large downloads in the browser": a large file is written by the
 * page itself with several Range requests at once, checked against its BLAKE3, and resumed after a
 * reload from the ranges already on disk. The OS save dialog cannot be driven, so only
 * `showSaveFilePicker` is replaced: it hands out a real file of the Origin Private File System.
 * Everything else — the engine, the ranges, the writes, the hash — is real.
 */

const FILE_URL = `http://127.0.0.1:${E2E_FILE_PORT}`;
const PASSWORD = "Para#Llel2026";
const MIB = 1024 * 1024;
/** Over the 64 MiB from which the page writes a download: 24 ranges of 3 MiB. */
const SIZE = 72 * MIB;
const RANGE = chunkSizeFor(SIZE);
const SCREENS = "/tmp/ferry/screens/downloads";

const sha256 = (data: Uint8Array) => createHash("sha256").update(data).digest("hex");

async function userWithFile(name: string, maxDownloadSpeed = 0) {
  const account = uniqueAccount("ranges");
  const { id } = await createUser(account, PASSWORD, { permission: PERMISSION_FULL, maxDownloadSpeed });
  const socketToken = (await login(account, PASSWORD)).data!.websocket_token;
  const files = await connectFiles(FILE_URL, socketToken);
  const bytes = randomBytes(SIZE);
  await seedFile(files, socketToken, `/${name}`, bytes);
  await files.close();
  return { id, account, bytes };
}

/** Lifts the user's download limit: what a test slowed down to catch midway may then finish at full speed. */
async function unlimited(id: number) {
  await ok("PATCH", `/api/admin/users/${id}`, { token: await adminToken(), body: { maxDownloadSpeed: 0 } });
}

/** The save dialog answered with a real OPFS file of the suggested name. */
async function pickerIntoOpfs(page: Page) {
  await page.addInitScript(() => {
    (window as unknown as { showSaveFilePicker: unknown }).showSaveFilePicker = async (options?: { suggestedName?: string }) => {
      const root = await navigator.storage.getDirectory();
      return root.getFileHandle(options?.suggestedName ?? "download", { create: true });
    };
  });
}

/** SHA-256 and size of the saved file, read in the page. */
function savedFile(page: Page, name: string) {
  return page.evaluate(async (fileName) => {
    const root = await navigator.storage.getDirectory();
    const file = await (await root.getFileHandle(fileName)).getFile();
    const digest = await crypto.subtle.digest("SHA-256", await file.arrayBuffer());
    return { size: file.size, sha256: [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("") };
  }, name);
}

/** The ranges committed to disk, as the page keeps them for a resume (IndexedDB). */
function committedRanges(page: Page): Promise<number[]> {
  return page.evaluate(
    () =>
      new Promise<number[]>((resolve) => {
        const open = indexedDB.open("ferry-page-downloads", 1);
        open.onupgradeneeded = () => open.result.createObjectStore("downloads", { keyPath: "id" });
        open.onsuccess = () => {
          const request = open.result.transaction("downloads").objectStore("downloads").getAll();
          request.onsuccess = () => {
            open.result.close();
            const records = request.result as { done: number[] }[];
            resolve(records[0]?.done ?? []);
          };
        };
      }),
  );
}

/** Range requests of the file server's downloads: their first bytes, `[start, end)` of each, and the most in flight at once. */
function watchRanges(page: Page) {
  const starts: number[] = [];
  const asked: [number, number][] = [];
  let inFlight = 0;
  let most = 0;
  const isRange = (request: Request) => request.url().includes("/download/") && request.headers().range !== undefined;
  page.on("request", (request) => {
    if (!isRange(request)) return;
    const [, first, last] = /^bytes=(\d+)-(\d+)/.exec(request.headers().range!)!;
    starts.push(Number(first));
    asked.push([Number(first), Number(last) + 1]);
    inFlight += 1;
    most = Math.max(most, inFlight);
  });
  const ended = (request: Request) => {
    if (isRange(request)) inFlight -= 1;
  };
  page.on("requestfinished", ended);
  page.on("requestfailed", ended);
  return { starts, asked, most: () => most };
}

/**
 * The requests asked for exactly the ranges of `expected` (indexes): each range from its first byte
 * once, and besides only second halves of a range split at the end of the download (an idle stream
 * takes over the rest of a slow range: page-download.ts, pickSplit), each inside its range.
 */
function expectRangesAsked(asked: [number, number][], expected: number[]) {
  const whole = asked.filter(([start]) => start % RANGE === 0).map(([start]) => start);
  expect(whole.sort((a, b) => a - b)).toEqual(expected.map((i) => i * RANGE));
  for (const [start, end] of asked) {
    const index = Math.floor(start / RANGE);
    expect(expected, `bytes ${start}-${end - 1} lie in a range that was asked for`).toContain(index);
    expect(end, `bytes ${start}-${end - 1} end inside their range`).toBeLessThanOrEqual(Math.min(SIZE, (index + 1) * RANGE));
  }
}

const table = (page: Page) => page.getByRole("region", { name: /^Files in|中的(分享)?文件$/ });
const toolbar = (page: Page) => page.getByRole("toolbar", { name: /^(File actions|文件操作)$/ });

/** Signs in and waits for the personal files page to be ready. */
async function openPersonal(page: Page, account: string) {
  await signIn(page, account, PASSWORD);
  await page.waitForURL(/\/personal/);
  await hydrated(page);
}

/** Ticks the row of `name` and clicks Download, in the page's language. */
async function downloadRow(page: Page, name: string, lang: "en" | "zh" = "en") {
  await table(page).getByRole("checkbox", { name: lang === "en" ? `Select row ${name}` : `选择此行 ${name}` }).check();
  await toolbar(page).getByRole("button", { name: lang === "en" ? "Download" : "下载", exact: true }).click();
}

async function shoot(page: Page, name: string, folder = SCREENS) {
  await screenshot(page, name);
  mkdirSync(folder, { recursive: true });
  copyFileSync(path.join("test-results", "screens", `${name}.png`), path.join(folder, `${name}.png`));
}

test.describe("parallel downloads written by the page", () => {
  test.describe.configure({ timeout: 180_000 });

  test("a large file arrives through parallel ranges, byte-identical and checked against its BLAKE3, without a leave warning or the browser's download manager", async ({ page }) => {
    const { account, bytes } = await userWithFile("film.bin");
    await pickerIntoOpfs(page);
    const dialogs: string[] = [];
    page.on("dialog", (dialog) => {
      dialogs.push(dialog.type());
      void dialog.dismiss();
    });
    const browserDownloads: string[] = [];
    page.on("download", (download) => browserDownloads.push(download.suggestedFilename()));
    const ranges = watchRanges(page);
    await openPersonal(page, account);

    await downloadRow(page, "film.bin");
    const row = transferPanel(page).getByRole("listitem", { name: "film.bin" });
    // Finished, the panel folds to its summary by itself: opened again to read the row.
    await expect(transferPanel(page)).toContainText("1 done", { timeout: 120_000 });
    await openTransfers(page);
    await expect(row).toContainText("Saved and checked");

    // Every range exactly once (a split's second half aside), several at a time.
    expectRangesAsked(ranges.asked, Array.from({ length: SIZE / RANGE }, (_v, i) => i));
    expect(ranges.most(), "ranges in flight at once").toBeGreaterThan(1);
    expect(await savedFile(page, "film.bin")).toEqual({ size: SIZE, sha256: sha256(bytes) });
    expect(browserDownloads, "the browser's download manager was not used").toEqual([]);
    expect(dialogs, "no leave warning").toEqual([]);

    // The user prefers the browser's download manager: remembered, and used from then on.
    await transferPanel(page).getByRole("checkbox", { name: "Save large downloads with the browser's download manager" }).click();
    await page.reload();
    await hydrated(page);
    const arrived = page.waitForEvent("download");
    await downloadRow(page, "film.bin");
    expect((await arrived).suggestedFilename()).toBe("film.bin");
  });

  test("a reload midway warns, then Resume fetches only the missing ranges and the file is byte-identical (English and Chinese)", async ({ page }) => {
    // 8 MiB/s for the user (the engine's speed limit): slow enough to reload midway.
    const { id, account, bytes } = await userWithFile("archive.bin", 8 * 1024);
    await pickerIntoOpfs(page);
    const dialogs: string[] = [];
    page.on("dialog", (dialog) => {
      dialogs.push(dialog.type());
      void dialog.accept();
    });
    const ranges = watchRanges(page);
    await openPersonal(page, account);

    await downloadRow(page, "archive.bin");
    const row = transferPanel(page).getByRole("listitem", { name: "archive.bin" });
    await expect(row.getByRole("button", { name: "Pause archive.bin" })).toBeVisible();
    await expect(row).toContainText("/s");
    await expect(row).toContainText("left");
    expect(await seriousViolations(page), "the panel with a running download: serious or critical accessibility violations").toEqual([]);
    await shoot(page, "parallel-download-running-en");

    // Once ranges are committed to disk, the page is reloaded: the user is asked first.
    await expect.poll(() => committedRanges(page), { timeout: 60_000 }).not.toEqual([]);
    expect(dialogs).toEqual([]);
    await page.reload();
    expect(dialogs, "leaving stops the download: the page asks").toEqual(["beforeunload"]);
    await hydrated(page);

    const resume = row.getByRole("button", { name: "Resume archive.bin" });
    await expect(resume).toBeVisible();
    expect(await seriousViolations(page), "the panel with a resumable download: serious or critical accessibility violations").toEqual([]);
    await shoot(page, "parallel-download-resumable-en");

    // In Chinese: the same download, resumable, then running.
    await page.getByRole("button", { name: "Switch the language to Chinese" }).click();
    await expect(page.locator("html")).toHaveAttribute("lang", "zh");
    await hydrated(page);
    await openTransfers(page);
    const zhRow = transferPanel(page).getByRole("listitem", { name: "archive.bin" });
    await expect(zhRow.getByRole("button", { name: "继续 archive.bin" })).toBeVisible();
    expect(await seriousViolations(page), "the resumable download in Chinese").toEqual([]);
    await shoot(page, "parallel-download-resumable-zh");

    const done = await committedRanges(page);
    const chunks = SIZE / RANGE;
    const missing = Array.from({ length: chunks }, (_v, i) => i).filter((i) => !done.includes(i));
    expect(missing.length).toBeGreaterThan(0);
    ranges.asked.length = 0;
    await unlimited(id);
    await zhRow.getByRole("button", { name: "继续 archive.bin" }).click();
    await expect(zhRow.getByRole("button", { name: "暂停 archive.bin" })).toBeVisible();
    await shoot(page, "parallel-download-running-zh");
    await expect(transferPanel(page)).toContainText("1 个已完成", { timeout: 120_000 });
    await openTransfers(page);
    await expect(zhRow).toContainText("已保存并校验");

    // Only the ranges that were not on disk were asked for, each once (a split's second half aside).
    expectRangesAsked(ranges.asked, missing);
    expect(await savedFile(page, "archive.bin")).toEqual({ size: SIZE, sha256: sha256(bytes) });
    // Finished: nothing is left to resume.
    expect(await committedRanges(page)).toEqual([]);
  });

  test("a second tab shows the download as running in the first, touches none of its ranges, and offers Resume once the first tab closes (English and Chinese)", async ({ page }) => {
    // 2 MiB/s for the user: the first tab is still downloading when it closes.
    const { id, account, bytes } = await userWithFile("shared.bin", 2 * 1024);
    await pickerIntoOpfs(page);
    page.on("dialog", (dialog) => void dialog.accept());
    await openPersonal(page, account);
    await downloadRow(page, "shared.bin");
    await expect(transferPanel(page).getByRole("listitem", { name: "shared.bin" }).getByRole("button", { name: "Pause shared.bin" })).toBeVisible();
    await expect.poll(() => committedRanges(page), { timeout: 60_000 }).not.toEqual([]);

    // A second tab of the same browser reads the same saved download, but it is the first tab's.
    const second = await page.context().newPage();
    const secondRanges = watchRanges(second);
    await second.goto("/personal");
    await hydrated(second);
    await openTransfers(second);
    const row = transferPanel(second).getByRole("listitem", { name: "shared.bin" });
    await expect(row).toContainText("Running in another tab of this browser");
    await expect(row.getByRole("button")).toHaveCount(0);
    expect(await seriousViolations(second), "a download running in another tab: serious or critical accessibility violations").toEqual([]);
    await shoot(second, "parallel-download-other-tab-en");
    await second.getByRole("button", { name: "Switch the language to Chinese" }).click();
    await expect(second.locator("html")).toHaveAttribute("lang", "zh");
    await hydrated(second);
    await openTransfers(second);
    const zhRow = transferPanel(second).getByRole("listitem", { name: "shared.bin" });
    await expect(zhRow).toContainText("正在此浏览器的另一个标签页中进行");
    await expect(zhRow.getByRole("button")).toHaveCount(0);
    expect(await seriousViolations(second), "the same in Chinese").toEqual([]);
    await shoot(second, "parallel-download-other-tab-zh");
    expect(secondRanges.starts, "the second tab asked for no range").toEqual([]);

    // The first tab goes: the second offers the download from the ranges the first committed.
    await page.close();
    const resume = zhRow.getByRole("button", { name: "继续 shared.bin" });
    await expect(resume).toBeVisible();
    const done = await committedRanges(second);
    expect(done.length).toBeGreaterThan(0);
    await unlimited(id);
    await resume.click();
    await expect(transferPanel(second)).toContainText("1 个已完成", { timeout: 120_000 });
    await openTransfers(second);
    await expect(zhRow).toContainText("已保存并校验");
    const missing = Array.from({ length: SIZE / RANGE }, (_v, i) => i).filter((i) => !done.includes(i));
    expectRangesAsked(secondRanges.asked, missing);
    expect(await savedFile(second, "shared.bin")).toEqual({ size: SIZE, sha256: sha256(bytes) });
  });

  test.describe("a folder written by the page", () => {
    /** The folder on the server: one large file (parallel ranges), small ones in sub-folders, an empty folder. */
    async function userWithFolder(maxDownloadSpeed = 0) {
      const account = uniqueAccount("folder");
      const user = await createUser(account, PASSWORD, { permission: PERMISSION_FULL, maxDownloadSpeed });
      const socketToken = (await login(account, PASSWORD)).data!.websocket_token;
      const files = await connectFiles(FILE_URL, socketToken);
      const tree: Record<string, Uint8Array> = {
        "big.bin": randomBytes(SIZE),
        "notes.txt": randomBytes(3000),
        "sub/a.bin": randomBytes(700 * 1024),
        "sub/b.txt": randomBytes(12),
        "sub/deep/c.bin": randomBytes(2 * MIB + 5),
        "sub/deep/empty.txt": new Uint8Array(0),
      };
      for (const [relative, bytes] of Object.entries(tree)) await seedFile(files, socketToken, `/album/${relative}`, bytes);
      await files.ok("mkdir", { groupId: 0, path: "/album/sub", name: "nothing-here" });
      await files.close();
      return { account, tree, userId: user.id };
    }

    /** The directory picker answered with the Origin Private File System's root. */
    async function directoryPickerIntoOpfs(page: Page) {
      await page.addInitScript(() => {
        (window as unknown as { showDirectoryPicker: unknown }).showDirectoryPicker = () => navigator.storage.getDirectory();
      });
    }

    /** Every file below `album` (or `top`) in the OPFS (relative path → size and SHA-256), and every folder. */
    function savedTree(page: Page, top = "album") {
      return page.evaluate(async (topName) => {
        const files: Record<string, { size: number; sha256: string }> = {};
        const folders: string[] = [];
        const walk = async (dir: FileSystemDirectoryHandle, prefix: string) => {
          for await (const [name, handle] of (dir as unknown as { entries(): AsyncIterable<[string, FileSystemHandle]> }).entries()) {
            const relative = prefix ? `${prefix}/${name}` : name;
            if (handle.kind === "directory") {
              folders.push(relative);
              await walk(handle as FileSystemDirectoryHandle, relative);
            } else {
              const file = await (handle as FileSystemFileHandle).getFile();
              const digest = await crypto.subtle.digest("SHA-256", await file.arrayBuffer());
              files[relative] = { size: file.size, sha256: [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("") };
            }
          }
        };
        await walk(await (await navigator.storage.getDirectory()).getDirectoryHandle(topName), "");
        return { files, folders: folders.sort() };
      }, top);
    }

    const expected = (tree: Record<string, Uint8Array>) => Object.fromEntries(Object.entries(tree).map(([relative, bytes]) => [relative, { size: bytes.length, sha256: sha256(bytes) }]));
    const FOLDERS = ["sub", "sub/deep", "sub/nothing-here"];

    /** The saved folder run (IndexedDB): each file's state. */
    function savedFolderRun(page: Page) {
      return page.evaluate(
        () =>
          new Promise<{ relative: string; done: boolean; ranges: number[] }[]>((resolve) => {
            const open = indexedDB.open("ferry-folder-downloads", 1);
            open.onupgradeneeded = () => open.result.createObjectStore("folders", { keyPath: "id" });
            open.onsuccess = () => {
              const request = open.result.transaction("folders").objectStore("folders").getAll();
              request.onsuccess = () => {
                open.result.close();
                const records = request.result as { files: { relative: string; done: boolean; ranges: number[] }[] }[];
                resolve(records[0]?.files ?? []);
              };
            };
          }),
      );
    }

    test("a folder arrives as its tree, every file byte-identical and checked, in one row with files done of total", async ({ page }) => {
      const { account, tree } = await userWithFolder();
      await directoryPickerIntoOpfs(page);
      const browserDownloads: string[] = [];
      page.on("download", (download) => browserDownloads.push(download.suggestedFilename()));
      const ranges = watchRanges(page);
      await openPersonal(page, account);

      await downloadRow(page, "album");
      await expect(transferPanel(page)).toContainText("1 done", { timeout: 120_000 });
      await openTransfers(page);
      const row = transferPanel(page).getByRole("listitem", { name: "album" });
      await expect(row).toContainText("Saved and checked: every file identical to the server's");
      await expect(row).toContainText("6 of 6 files");
      expect(await seriousViolations(page), "the panel with a finished folder: serious or critical accessibility violations").toEqual([]);
      await shoot(page, "folder-download-done-en");

      expect(await savedTree(page)).toEqual({ files: expected(tree), folders: FOLDERS });
      // The large file through its ranges, each once (a split's second half aside); no zip through the browser's download manager.
      expectRangesAsked(ranges.asked, Array.from({ length: SIZE / RANGE }, (_v, i) => i));
      expect(browserDownloads).toEqual([]);
      expect(await savedFolderRun(page), "finished: nothing left to resume").toEqual([]);
    });

    test("a reload midway leaves the folder resumable; Resume skips the finished files and the large file's committed ranges, and the tree is byte-identical (English and Chinese)", async ({ page }) => {
      // 8 MiB/s for the user: the large file (after the small ones) is still running at the reload.
      const { account, tree, userId } = await userWithFolder(8 * 1024);
      await directoryPickerIntoOpfs(page);
      page.on("dialog", (dialog) => void dialog.accept());
      const ranges = watchRanges(page);
      const plainGets: string[] = [];
      page.on("request", (request) => {
        if (request.url().includes("/download/") && request.headers().range === undefined) plainGets.push(request.url());
      });
      await openPersonal(page, account);

      await downloadRow(page, "album");
      const row = transferPanel(page).getByRole("listitem", { name: "album" });
      await expect(row.getByRole("button", { name: "Pause album" })).toBeVisible();
      await expect(row).toContainText("5 of 6 files", { timeout: 60_000 });
      await expect(row).toContainText("/s");
      await expect(row).toContainText("left");
      expect(await seriousViolations(page), "the panel with a running folder: serious or critical accessibility violations").toEqual([]);
      await shoot(page, "folder-download-running-en");

      // Once ranges of the large file are on disk, the page is reloaded.
      await expect.poll(async () => (await savedFolderRun(page)).find((file) => file.relative === "big.bin")?.ranges.length ?? 0, { timeout: 60_000 }).toBeGreaterThan(0);
      await page.reload();
      await hydrated(page);
      const resume = row.getByRole("button", { name: "Resume album" });
      await expect(resume).toBeVisible();
      await expect(row).toContainText("5 of 6 files");
      expect(await seriousViolations(page), "the panel with a resumable folder").toEqual([]);
      await shoot(page, "folder-download-resumable-en");

      await page.getByRole("button", { name: "Switch the language to Chinese" }).click();
      await expect(page.locator("html")).toHaveAttribute("lang", "zh");
      await hydrated(page);
      await openTransfers(page);
      const zhRow = transferPanel(page).getByRole("listitem", { name: "album" });
      await expect(zhRow).toContainText("5/6 个文件");
      expect(await seriousViolations(page), "the resumable folder in Chinese").toEqual([]);
      await shoot(page, "folder-download-resumable-zh");

      const saved = await savedFolderRun(page);
      const done = saved.find((file) => file.relative === "big.bin")!.ranges;
      expect(saved.filter((file) => file.done).map((file) => file.relative).sort()).toEqual(Object.keys(tree).filter((relative) => relative !== "big.bin").sort());
      const missing = Array.from({ length: SIZE / RANGE }, (_v, i) => i).filter((i) => !done.includes(i));
      expect(missing.length).toBeGreaterThan(0);
      ranges.asked.length = 0;
      plainGets.length = 0;
      await unlimited(userId);
      await zhRow.getByRole("button", { name: "继续 album" }).click();
      await expect(zhRow.getByRole("button", { name: "暂停 album" })).toBeVisible();
      await shoot(page, "folder-download-running-zh");
      await expect(transferPanel(page)).toContainText("1 个已完成", { timeout: 120_000 });
      await openTransfers(page);
      await expect(zhRow).toContainText("已保存并校验：每个文件都与服务器上的完全一致");
      await shoot(page, "folder-download-done-zh");

      // Only the large file's missing ranges were asked for; no finished small file again.
      expectRangesAsked(ranges.asked, missing);
      expect(plainGets).toEqual([]);
      expect(await savedTree(page)).toEqual({ files: expected(tree), folders: FOLDERS });
      expect(await savedFolderRun(page)).toEqual([]);
    });

    test("a file the engine refuses (the user's file filter) is named in the row, not on disk; the others are saved and checked; a second download goes beside the first (en, zh)", async ({ page }) => {
      const { account, tree, userId } = await userWithFolder();
      // A file the filter names, put there before the administrator set the filter: listed, but its download is refused.
      const socketToken = (await login(account, PASSWORD)).data!.websocket_token;
      const files = await connectFiles(FILE_URL, socketToken);
      await seedFile(files, socketToken, "/album/sub/draft.tmp", randomBytes(40));
      await files.close();
      await ok("PATCH", `/api/admin/users/${userId}`, { token: await adminToken(), body: { transIgnoreRegSwitch: true, transIgnoreReg: "*.tmp" } });
      await directoryPickerIntoOpfs(page);
      await openPersonal(page, account);

      await downloadRow(page, "album");
      await expect(transferPanel(page)).toContainText("1 done", { timeout: 120_000 });
      await openTransfers(page);
      const row = transferPanel(page).getByRole("listitem", { name: "album" });
      await expect(row).toContainText("Saved, except the files listed below");
      await expect(row).toContainText("7 of 7 files, 1 not saved:");
      await expect(row.getByRole("listitem")).toHaveText(["sub/draft.tmp: Skipped: the file filter of this space leaves out files of this name or size"]);
      expect(await seriousViolations(page), "the panel with a folder one file of which was refused").toEqual([]);
      await shoot(page, "folder-download-refused-en", "/tmp/ferry/screens/transfers");
      // The others are saved and checked; the refused one is not on disk (not even empty).
      expect(await savedTree(page)).toEqual({ files: expected(tree), folders: FOLDERS });

      // In Chinese, the same folder again: it goes into a new "album (1)" beside the first, which stays as it is.
      await page.getByRole("button", { name: "Switch the language to Chinese" }).click();
      await expect(page.locator("html")).toHaveAttribute("lang", "zh");
      await hydrated(page);
      await downloadRow(page, "album", "zh");
      await expect(transferPanel(page)).toContainText("1 个已完成", { timeout: 120_000 });
      await openTransfers(page);
      const zhRow = transferPanel(page).getByRole("listitem", { name: "album" });
      await expect(zhRow).toContainText("已保存，下列文件除外");
      await expect(zhRow).toContainText("7/7 个文件，1 个未保存：");
      await expect(zhRow.getByRole("listitem")).toHaveText(["sub/draft.tmp：已跳过：此空间的文件过滤规则不传输此名称或大小的文件"]);
      expect(await seriousViolations(page), "the same in Chinese").toEqual([]);
      await shoot(page, "folder-download-refused-zh", "/tmp/ferry/screens/transfers");
      expect(await savedTree(page, "album (1)")).toEqual({ files: expected(tree), folders: FOLDERS });
      expect(await savedTree(page)).toEqual({ files: expected(tree), folders: FOLDERS });
    });

    test("a folder that fails in the tab writing it shows that failure in another tab, live and after a reload, and running again when that tab retries (en, zh)", async ({ page }) => {
      // 2 MiB/s for the user: the large file is still running when its requests start failing.
      const { account } = await userWithFolder(2 * 1024);
      await directoryPickerIntoOpfs(page);
      await openPersonal(page, account);
      await downloadRow(page, "album");
      const row = transferPanel(page).getByRole("listitem", { name: "album" });
      await expect(row).toContainText("5 of 6 files", { timeout: 60_000 });

      const second = await page.context().newPage();
      await second.goto("/personal");
      await hydrated(second);
      await openTransfers(second);
      const other = transferPanel(second).getByRole("listitem", { name: "album" });
      await expect(other).toContainText("Running in another tab of this browser");

      // The first tab's downloads are cut off: its folder fails, and the second tab follows.
      const cutOff = (url: URL) => url.port === String(E2E_FILE_PORT) && url.pathname.includes("/download/");
      await page.route(cutOff, (route) => route.abort("connectionreset"));
      await expect(row).toContainText("Download failed: The connection to the file server was lost", { timeout: 60_000 });
      await expect(other).toContainText("Failed in another tab of this browser: The connection to the file server was lost");
      await expect(other).toContainText("5 of 6 files");
      await expect(other.getByRole("button")).toHaveCount(0);
      expect(await seriousViolations(second), "a folder that failed in another tab").toEqual([]);
      await shoot(second, "folder-download-other-tab-failed-en", "/tmp/ferry/screens/transfers");

      // Opened again in Chinese, the second tab reads the failure saved with the folder's run.
      await second.getByRole("button", { name: "Switch the language to Chinese" }).click();
      await expect(second.locator("html")).toHaveAttribute("lang", "zh");
      await hydrated(second);
      await openTransfers(second);
      const zhOther = transferPanel(second).getByRole("listitem", { name: "album" });
      await expect(zhOther).toContainText("在此浏览器的另一个标签页中失败：与文件服务器的连接已断开");
      await expect(zhOther.getByRole("button")).toHaveCount(0);
      expect(await seriousViolations(second), "the same in Chinese").toEqual([]);
      await shoot(second, "folder-download-other-tab-failed-zh", "/tmp/ferry/screens/transfers");

      // The first tab retries: the second shows it running there again.
      await page.unroute(cutOff);
      await row.getByRole("button", { name: /^(Retry|重试) album$/ }).click();
      await expect(zhOther).toContainText("正在此浏览器的另一个标签页中进行");
      await expect(zhOther.getByRole("button")).toHaveCount(0);
    });

    test("Cancel stops the folder and removes what was written, and nothing is left to resume", async ({ page }) => {
      const { account } = await userWithFolder(4 * 1024);
      await directoryPickerIntoOpfs(page);
      await openPersonal(page, account);
      await downloadRow(page, "album");
      const row = transferPanel(page).getByRole("listitem", { name: "album" });
      await expect(row).toContainText("5 of 6 files", { timeout: 60_000 });
      await row.getByRole("button", { name: "Cancel album" }).click();
      await expect(row).toHaveCount(0);
      const left = () => page.evaluate(async () => {
        const names: string[] = [];
        for await (const name of (await navigator.storage.getDirectory() as unknown as { keys(): AsyncIterable<string> }).keys()) names.push(name);
        return names;
      });
      await expect.poll(left).toEqual([]);
      expect(await savedFolderRun(page)).toEqual([]);
    });
  });
});
