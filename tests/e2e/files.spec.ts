import type { Page } from "@playwright/test";
import { Permission, PERMISSION_FULL } from "../../contract/permissions";
import { E2E_FILE_PORT } from "../support/e2e-env";
import { adminToken, createUser, login, ok, uniqueAccount } from "../support/e2e-helpers";
import { connectFiles, type FileClient } from "../support/file-client";
import { solidPng, tinyPdf } from "../support/sample-files";
import { expect, hydrated, screenshot, signIn, test, seedFile } from "./fixtures";

const FILE_URL = `http://127.0.0.1:${E2E_FILE_PORT}`;
const PASSWORD = "Files#Test2026";

/** A new user with `permission`, signed in through the page; `files` is the same user's socket, to set the scene and to forge commands. */
async function userWith(page: Page, permission: number): Promise<{ account: string; id: number; files: FileClient; socketToken: string }> {
  const account = uniqueAccount("files");
  const user = await createUser(account, PASSWORD, { permission });
  const signedIn = await login(account, PASSWORD);
  const socketToken = signedIn.data!.websocket_token;
  const files = await connectFiles(FILE_URL, socketToken);
  await signIn(page, account, PASSWORD);
  await page.waitForURL(/\/personal/);
  await hydrated(page);
  return { account, id: user.id, files, socketToken };
}

const table = (page: Page) => page.getByRole("region", { name: /^Files in/ });
/** A row by its name: a folder's name is a link, a file's a button (it opens the preview). */
const row = (page: Page, name: string) =>
  table(page).getByRole("row").filter({ has: page.getByRole("button", { name, exact: true }).or(page.getByRole("link", { name, exact: true })) });
const toast = (page: Page, text: string | RegExp) => page.getByRole("status").filter({ hasText: text });
const alertToast = (page: Page, text: string | RegExp) => page.getByRole("alert").filter({ hasText: text });

async function openMenu(page: Page, name: string, item: string) {
  await page.getByRole("button", { name: `More actions for ${name}` }).click();
  await page.getByRole("menuitem", { name: item }).click();
}

test.describe("file browser", () => {
  test("mkdir with its name rules and 'path exists', rename, delete with confirmation", async ({ page }) => {
    const { files } = await userWith(page, PERMISSION_FULL);
    await files.ok("mkdir", { groupId: 0, path: "/", name: "taken" });
    await page.getByRole("button", { name: "Refresh" }).click();
    await expect(row(page, "taken")).toBeVisible();

    await page.getByRole("toolbar", { name: "File actions" }).getByRole("button", { name: "New folder" }).click();
    const dialog = page.getByRole("dialog", { name: "Create folder" });
    const name = dialog.getByLabel("Folder name");
    await expect(name).toHaveValue("New folder");
    await name.fill("bad:name");
    await dialog.getByRole("button", { name: "Confirm" }).click();
    await expect(dialog.getByRole("alert")).toHaveText(/must not contain any of/);
    await name.fill("taken");
    await dialog.getByRole("button", { name: "Confirm" }).click();
    await expect(alertToast(page, /already exists/)).toBeVisible();
    await expect(dialog).toBeVisible();
    await name.fill("reports");
    await dialog.getByRole("button", { name: "Confirm" }).click();
    await expect(toast(page, "Created")).toBeVisible();
    await expect(row(page, "reports")).toBeVisible();

    await openMenu(page, "reports", "Rename");
    const rename = page.getByRole("dialog", { name: "Rename" });
    await rename.getByLabel("New name").fill("a|b");
    await rename.getByRole("button", { name: "Confirm" }).click();
    await expect(rename.getByRole("alert")).toHaveText(/must not contain any of/);
    await rename.getByLabel("New name").fill("taken");
    await rename.getByRole("button", { name: "Confirm" }).click();
    await expect(alertToast(page, /already exists/)).toBeVisible();
    await rename.getByLabel("New name").fill("archive");
    await rename.getByRole("button", { name: "Confirm" }).click();
    await expect(toast(page, "Rename succeeded")).toBeVisible();
    await expect(row(page, "archive")).toBeVisible();
    await expect(row(page, "reports")).toHaveCount(0);

    await table(page).getByRole("checkbox", { name: "Select row archive" }).check();
    await page.getByRole("toolbar", { name: "File actions" }).getByRole("button", { name: "Delete" }).click();
    const confirm = page.getByRole("dialog", { name: "Delete" });
    await expect(confirm).toContainText("Are you sure you want to delete this item?");
    await expect(confirm.getByRole("listitem")).toHaveText(["archive"]);
    await confirm.getByRole("button", { name: "Cancel" }).click();
    await expect(row(page, "archive")).toBeVisible();
    await page.getByRole("toolbar", { name: "File actions" }).getByRole("button", { name: "Delete" }).click();
    await confirm.getByRole("button", { name: "Delete" }).click();
    await expect(toast(page, "Deleted")).toBeVisible();
    await expect(row(page, "archive")).toHaveCount(0);
    expect((await files.ok("list", { groupId: 0, path: "/" })).names).toEqual(["taken"]);
    await files.close();
  });

  test("move and copy ask before overwriting; cancelling changes nothing", async ({ page }) => {
    const { files } = await userWith(page, PERMISSION_FULL);
    for (const name of ["src", "dest"]) await files.ok("mkdir", { groupId: 0, path: "/", name });
    await files.ok("mkdir", { groupId: 0, path: "/src", name: "clash" });
    await files.ok("mkdir", { groupId: 0, path: "/src", name: "solo" });
    await files.ok("mkdir", { groupId: 0, path: "/dest", name: "clash" });
    await page.goto("/personal?path=/src");
    await expect(row(page, "clash")).toBeVisible();

    await table(page).getByRole("checkbox", { name: "Select row clash" }).check();
    const toolbar = page.getByRole("toolbar", { name: "File actions" });
    await toolbar.getByRole("button", { name: "Copy" }).click();
    const target = page.getByRole("dialog", { name: "Copy to" });
    await target.getByRole("button", { name: "dest", exact: true }).click();
    await expect(target).toContainText("Target folder: /dest");
    await target.getByRole("button", { name: "Confirm" }).click();
    const overwrite = page.getByRole("dialog", { name: "Overwrite?" });
    await expect(overwrite).toContainText("clash");
    await overwrite.getByRole("button", { name: "Cancel" }).click();
    await expect(overwrite).toBeHidden();

    await toolbar.getByRole("button", { name: "Copy" }).click();
    await target.getByRole("button", { name: "dest", exact: true }).click();
    await target.getByRole("button", { name: "Confirm" }).click();
    await overwrite.getByRole("button", { name: "Overwrite" }).click();
    await expect(toast(page, "Copy succeeded")).toBeVisible();
    await expect(row(page, "clash")).toBeVisible();

    await openMenu(page, "solo", "Move");
    const move = page.getByRole("dialog", { name: "Move to" });
    await move.getByRole("button", { name: "dest", exact: true }).click();
    await move.getByRole("button", { name: "Confirm" }).click();
    await expect(toast(page, "Move succeeded")).toBeVisible();
    await expect(row(page, "solo")).toHaveCount(0);
    expect((await files.ok("list", { groupId: 0, path: "/dest" })).names.sort()).toEqual(["clash", "solo"]);
    await files.close();
  });

  test("breadcrumb, URL, back and forward, search, attributes, path-not-exist", async ({ page }) => {
    const { files } = await userWith(page, PERMISSION_FULL);
    await files.ok("mkdir", { groupId: 0, path: "/", name: "docs" });
    await files.ok("mkdir", { groupId: 0, path: "/docs", name: "2024" });
    await files.ok("mkdir", { groupId: 0, path: "/docs/2024", name: "needle-folder" });
    await page.getByRole("button", { name: "Refresh" }).click();

    await row(page, "docs").getByRole("link", { name: "docs", exact: true }).click();
    await expect(page).toHaveURL(/path=%2Fdocs$/);
    await row(page, "2024").getByRole("link", { name: "2024", exact: true }).press("Enter");
    await expect(page).toHaveURL(/path=%2Fdocs%2F2024$/);
    const crumbs = page.getByRole("navigation", { name: "Current folder" });
    await expect(crumbs.getByRole("listitem")).toHaveText(["All files/", "docs/", "2024"]);
    await page.goBack();
    await expect(row(page, "2024")).toBeVisible();
    await page.goForward();
    await expect(row(page, "needle-folder")).toBeVisible();
    await crumbs.getByRole("button", { name: "All files" }).click();
    await expect(row(page, "docs")).toBeVisible();

    await page.reload();
    await page.getByRole("button", { name: "Search" }).click();
    const search = page.getByRole("dialog", { name: "Search" });
    await search.getByLabel("Keyword").fill("needle");
    await search.getByRole("button", { name: "Search" }).click();
    await search.getByRole("button", { name: /needle-folder/ }).click();
    await expect(page).toHaveURL(/path=%2Fdocs%2F2024%2Fneedle-folder$/);

    await page.goto("/personal?path=/docs");
    await openMenu(page, "2024", "Attributes");
    const attributes = page.getByRole("dialog", { name: "Attributes" });
    await expect(attributes).toContainText("/docs/2024");
    await expect(attributes.getByRole("definition").nth(3)).toHaveText("1");
    await attributes.getByRole("button", { name: "Confirm" }).click();

    await page.goto("/personal?path=/nope");
    const missing = page.getByRole("dialog");
    await expect(missing).toContainText("The path does not exist");
    await missing.getByRole("button", { name: "OK" }).click();
    await expect(page).toHaveURL(/\/personal$/);
    await expect(row(page, "docs")).toBeVisible();
    await files.close();
  });

  test("preview shows a real image and PDF from the file server, explains the rest; a name with markup is text", async ({ page }) => {
    const { files, socketToken } = await userWith(page, PERMISSION_FULL);
    await seedFile(files, socketToken, "/photo.png", solidPng(24, 16));
    await seedFile(files, socketToken, "/paper.pdf", tinyPdf());
    await seedFile(files, socketToken, "/bundle.zip", "not really a zip");
    await seedFile(files, socketToken, "/report.docx", "not really a document");
    await page.getByRole("button", { name: "Refresh" }).click();

    await row(page, "photo.png").getByRole("button", { name: "photo.png", exact: true }).dblclick();
    const imageDialog = page.getByRole("dialog", { name: "photo.png" });
    const image = imageDialog.getByRole("img", { name: "photo.png" });
    await expect(image).toHaveAttribute("src", new RegExp(`^${FILE_URL}/preview/`));
    // Decoded, not a broken-image icon: the browser read the PNG's real size from the file server.
    await expect.poll(() => image.evaluate((img: HTMLImageElement) => (img.complete ? img.naturalWidth : 0))).toBe(24);
    await screenshot(page, "files-preview-image-en");
    await imageDialog.getByRole("button", { name: "Close" }).click();
    await expect(imageDialog).toBeHidden();

    const pdfLoaded = page.waitForResponse((res) => res.url().startsWith(`${FILE_URL}/preview/`) && res.url().endsWith("/paper.pdf"));
    await row(page, "paper.pdf").getByRole("button", { name: "paper.pdf", exact: true }).dblclick();
    const pdfDialog = page.getByRole("dialog", { name: "paper.pdf" });
    await expect(pdfDialog.locator("iframe")).toHaveAttribute("title", "paper.pdf");
    const pdf = await pdfLoaded;
    expect(pdf.status()).toBe(200);
    expect(pdf.headers()["content-type"]).toBe("application/pdf");
    // Chromium's PDF viewer is an extension frame inside the previewed document; a refused or broken PDF has none.
    await expect.poll(() => page.frames().some((frame) => frame.url().startsWith("chrome-extension://"))).toBe(true);
    await pdfDialog.getByRole("button", { name: "Close" }).click();

    await row(page, "bundle.zip").getByRole("button", { name: "bundle.zip", exact: true }).dblclick();
    await expect(alertToast(page, "Preview is not supported for this file type.")).toBeVisible();
    await row(page, "report.docx").getByRole("button", { name: "report.docx", exact: true }).dblclick();
    await expect(alertToast(page, "This file cannot be previewed in the browser.")).toBeVisible();

    // "<" and ">" are not allowed in names (spec section 5), so the engine refuses the literal tag;
    // its escaped spelling is a legal name and must show as exactly those characters.
    const forgedName = await files.cmd("mkdir", { groupId: 0, path: "/", name: "<img src=x onerror=alert(1)>" });
    expect(forgedName.code).toBe(4161);
    const entity = "&lt;img src=x onerror=alert(1)&gt;";
    await files.ok("mkdir", { groupId: 0, path: "/", name: entity });
    let dialogs = 0;
    page.on("dialog", () => dialogs++);
    await page.getByRole("button", { name: "Refresh" }).click();
    await expect(row(page, entity)).toBeVisible();
    await expect(table(page).locator("img")).toHaveCount(0);
    expect(dialogs).toBe(0);
    await files.close();
  });

  test("a user without Upload, Delete, Mkdir… sees no such buttons and the engine refuses the forged commands", async ({ page }) => {
    const { files } = await userWith(page, Permission.List | Permission.Download);
    const toolbar = page.getByRole("toolbar", { name: "File actions" });
    await expect(toolbar.getByRole("button", { name: "Download" })).toBeDisabled();
    for (const name of ["Upload files", "Upload folder", "New folder", "Copy", "Move", "Delete"]) {
      await expect(toolbar.getByRole("button", { name })).toHaveCount(0);
    }
    await screenshot(page, "files-readonly-en");
    const forged = await files.cmd("mkdir", { groupId: 0, path: "/", name: "forged" });
    expect(forged.code).toBe(1008);
    expect((await files.cmd("remove", { groupId: 0, paths: ["/anything"] })).code).toBe(1008);
    await files.close();
  });

  test("in Chinese: create a folder, its default name and notices translated", async ({ page }) => {
    const { files } = await userWith(page, PERMISSION_FULL);
    await page.getByRole("button", { name: "Switch the language to Chinese" }).click();
    await hydrated(page);
    const toolbar = page.getByRole("toolbar", { name: "文件操作" });
    await expect(toolbar.getByRole("button", { name: "下载" })).toBeDisabled();
    await toolbar.getByRole("button", { name: "新建文件夹" }).click();
    const dialog = page.getByRole("dialog", { name: "新建文件夹" });
    await expect(dialog.getByLabel("文件夹名称")).toHaveValue("新建文件夹");
    await dialog.getByLabel("文件夹名称").fill("a?b");
    await dialog.getByRole("button", { name: "确定" }).click();
    await expect(dialog.getByRole("alert")).toHaveText(/名称最多 255 个字符/);
    await dialog.getByLabel("文件夹名称").fill("新建文件夹");
    await dialog.getByRole("button", { name: "确定" }).click();
    await expect(page.getByRole("status").filter({ hasText: "创建成功" })).toBeVisible();
    await expect(page.getByRole("region", { name: /中的文件$/ }).getByRole("link", { name: "新建文件夹", exact: true })).toBeVisible();
    await screenshot(page, "files-personal-zh");
    await page.getByRole("button", { name: "切换语言为英文" }).click();
    await hydrated(page);
    await screenshot(page, "files-personal-en");
    await files.close();
  });

  test("group list and a group's space", async ({ page }) => {
    const admin = await adminToken();
    const group = await ok<{ id: number }>("POST", "/api/admin/groups", { token: admin, body: { name: uniqueAccount("team") } });
    const { id, files } = await userWith(page, Permission.List);
    await ok("PUT", `/api/admin/groups/${group.id}/members/${id}`, { token: admin, body: { groupPermission: Permission.List | Permission.Mkdir } });
    await page.goto("/group");
    await page.getByRole("button", { name: /^Open team_/ }).click();
    await expect(page).toHaveURL(new RegExp(`/group/detail/${group.id}$`));
    await hydrated(page);
    const toolbar = page.getByRole("toolbar", { name: "File actions" });
    await expect(toolbar.getByRole("button", { name: "New folder" })).toBeVisible();
    await expect(toolbar.getByRole("button", { name: "Delete" })).toHaveCount(0);
    await toolbar.getByRole("button", { name: "New folder" }).click();
    await page.getByRole("dialog", { name: "Create folder" }).getByRole("button", { name: "Confirm" }).click();
    await expect(row(page, "New folder")).toBeVisible();
    await page.getByRole("navigation", { name: "Current folder" }).getByRole("link", { name: "Group spaces" }).click();
    await expect(page).toHaveURL(/\/group$/);
    expect((await files.cmd("remove", { groupId: group.id, paths: ["/New folder"] })).code).toBe(1008);
    await files.close();
  });
});
