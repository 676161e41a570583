import type { Page } from "@playwright/test";
import { PERMISSION_FULL } from "../../contract/permissions";
import { E2E_FILE_PORT } from "../support/e2e-env";
import { adminToken, createUser, login, ok, uniqueAccount } from "../support/e2e-helpers";
import { connectFiles } from "../support/file-client";
import { expect, hydrated, screenshot, seedFile, signIn, test } from "./fixtures";

/**
 * A user the administrator gave a virtual directory and forbidden paths (admin API) sees exactly
 * that on the personal page: the alias as a folder holding its target's files, and nothing of the
 * forbidden paths (docs/storage.md, "Virtual directories"; docs/admin-api.md).
 */
const FILE_URL = `http://127.0.0.1:${E2E_FILE_PORT}`;
const PASSWORD = "Virtual#Dir2026";

const table = (page: Page) => page.getByRole("region", { name: /^(Files in|.*中的文件$)/ });
/** The rows of the file table that name an entry (a folder's name is a link, a file's a button). */
const entryRows = (page: Page) => table(page).getByRole("row").filter({ has: page.getByRole("checkbox", { name: /^(Select row|选择此行)/ }) });

async function seeded(account: string, files: Record<string, string>) {
  const socketToken = (await login(account, PASSWORD)).data!.websocket_token;
  const client = await connectFiles(FILE_URL, socketToken);
  for (const [p, content] of Object.entries(files)) await seedFile(client, socketToken, p, content);
  await client.close();
}

test("a user with a virtual directory and forbidden paths sees exactly that on the personal page", async ({ browser }) => {
  // The target: another account's home, with a folder the user must not see.
  const owner = await createUser(uniqueAccount("vdowner"), PASSWORD, { permission: PERMISSION_FULL });
  await seeded(owner.account, { "/plan.txt": "team plan", "/secret/keys.txt": "keys" });
  const user = await createUser(uniqueAccount("vduser"), PASSWORD, { permission: PERMISSION_FULL });
  await seeded(user.account, { "/mine.txt": "mine", "/private/diary.txt": "diary" });
  await ok("PATCH", `/api/admin/users/${user.id}`, {
    token: await adminToken(),
    body: { virtualDirectories: [{ alias: "/Team", path: owner.home }], forbiddenPaths: ["/private", "/Team/secret"] },
  });

  for (const [locale, width] of [
    ["en-US", 1440],
    ["zh-CN", 1280],
  ] as const) {
    const context = await browser.newContext({ locale, viewport: { width, height: 900 } });
    const page = await context.newPage();
    await signIn(page, user.account, PASSWORD);
    await page.waitForURL(/\/personal/);
    await hydrated(page);
    await expect(table(page).getByRole("link", { name: "Team", exact: true })).toBeVisible();
    await expect(table(page).getByRole("button", { name: "mine.txt", exact: true })).toBeVisible();
    await expect(entryRows(page)).toHaveCount(2);
    await expect(table(page).getByText("private")).toHaveCount(0);
    await screenshot(page, `virtual-dirs-personal-${locale}-${width}`);

    await table(page).getByRole("link", { name: "Team", exact: true }).click();
    await expect(table(page).getByRole("button", { name: "plan.txt", exact: true })).toBeVisible();
    await expect(entryRows(page)).toHaveCount(1);
    await expect(table(page).getByText("secret")).toHaveCount(0);
    await screenshot(page, `virtual-dirs-team-${locale}-${width}`);
    await context.close();
  }
});
