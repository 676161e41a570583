import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import type { Page } from "@playwright/test";
import type { AdminGroup } from "../../contract/admin";
import type { AdminStorage, StorageBody } from "../../contract/storage";
import { type AzuriteServer, startAzurite } from "../support/azurite";
import { adminToken, call, createUser, ok, uniqueAccount } from "../support/e2e-helpers";
import { S3RVER_KEYS, type S3Server, startS3rver } from "../support/s3";
import { auditPage, openConsoleScreen } from "./admin-console";
import { expect, hydrated, openTransfers, screenshot, signIn, test, transferPanel } from "./fixtures";

/**
 * Issue 17, end to end: a group whose home is on object storage. The administrator adds the group
 * in the console on an S3-compatible storage (s3rver) or an Azure Blob one (Azurite); a member
 * uploads a file of several parts through the page (tus into the store's multipart or staged
 * blocks, no local copy kept) and downloads it back through the page, byte-identical. The object
 * is in the store under the storage's folder and the group's home, and nothing is left of the upload.
 */

const PASSWORD = "Obj3ct!Store";
const MIB = 1024 * 1024;
/** Two full 5 MiB parts and a short last one. */
const SIZE = 11 * MIB + 123;
const workDir = mkdtempSync(path.join(tmpdir(), "ferry-object-group-"));

let s3: S3Server;
let azurite: AzuriteServer;

test.beforeAll(async () => {
  s3 = await startS3rver("e2e-group-bucket");
  azurite = await startAzurite("e2e-group-container");
});
test.afterAll(async () => {
  await s3?.stop();
  await azurite?.stop();
});

interface Store {
  body: (name: string) => StorageBody;
  /** Every object key (or blob name) under `prefix`, with its size. */
  list: (prefix: string) => Promise<Map<string, number>>;
}

const STORES: Record<"s3compatible" | "azure", Store> = {
  s3compatible: {
    body: (name) => ({ name, provider: "s3compatible", endpoint: s3.endpoint, bucket: s3.bucket, region: "us-east-1", path: `e2e/${name}`, sliceSize: 5 * MIB, ...S3RVER_KEYS }),
    list: async (prefix) => {
      const client = new S3Client({ endpoint: s3.endpoint, region: "us-east-1", forcePathStyle: true, credentials: S3RVER_KEYS });
      try {
        const listed = await client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: prefix }));
        return new Map((listed.Contents ?? []).map((o) => [o.Key!, o.Size!]));
      } finally {
        client.destroy();
      }
    },
  },
  azure: {
    body: (name) => ({ name, provider: "azure", container: azurite.container, connectionString: azurite.connectionString, path: `e2e/${name}` }),
    list: async (prefix) => {
      const found = new Map<string, number>();
      for await (const blob of azurite.client.getContainerClient(azurite.container).listBlobsFlat({ prefix })) found.set(blob.name, blob.properties.contentLength ?? 0);
      return found;
    },
  },
};

async function groupNamed(name: string): Promise<AdminGroup> {
  const page = await ok<{ list: AdminGroup[] }>("GET", `/api/admin/groups?pageNum=1&pageSize=10&search=${encodeURIComponent(name)}`, { token: await adminToken() });
  const group = page.list.find((g) => g.name === name);
  expect(group, `group ${name}`).toBeTruthy();
  return group!;
}

const table = (page: Page) => page.getByRole("region", { name: /^Files in|中的文件$/ });

for (const [provider, locale] of [
  ["s3compatible", "en-US"],
  ["azure", "zh-CN"],
] as const) {
  const store = STORES[provider];
  const zh = locale === "zh-CN";

  test(`${provider}: a group made on it in the console takes a member's upload through the page and gives it back byte-identical (${zh ? "zh" : "en"})`, async ({ browser }) => {
    test.setTimeout(180_000);
    const admin = await adminToken();
    const storageName = uniqueAccount(`obj${provider.slice(0, 3)}`);
    const storage = await ok<AdminStorage>("POST", "/api/admin/storages", { token: admin, body: store.body(storageName) });
    const member = await createUser(uniqueAccount("objmember"), PASSWORD);
    const groupName = uniqueAccount("objteam");

    // The administrator adds the group on that storage, in the console.
    const consolePage = await openConsoleScreen(browser, locale, "/admin/groups");
    try {
      const { page } = consolePage;
      await page.getByRole("link", { name: zh ? "添加群组" : "Add group" }).click();
      const dialog = page.getByRole("dialog", { name: zh ? "添加群组" : "Add group" });
      await dialog.getByLabel(zh ? "群组名称" : "Group name").fill(groupName);
      await dialog.getByLabel(zh ? "存储" : "Storage", { exact: true }).selectOption({ label: storageName });
      await dialog.getByLabel(zh ? "查找要添加的用户" : "Find users to add").fill(member.account);
      await dialog.getByRole("button", { name: zh ? `添加 ${member.account}` : `Add ${member.account}` }).click();
      await dialog.getByLabel(zh ? `${member.account} 的权限` : `Permission of ${member.account}`).selectOption("full");
      await dialog.getByRole("button", { name: zh ? "确定" : "Confirm" }).click();
      await expect(dialog).toBeHidden();
    } finally {
      await consolePage.context.close();
    }
    const group = await groupNamed(groupName);
    expect(group.storageId).toBe(storage.id);

    // The member uploads a file of several parts on the group page.
    const bytes = randomBytes(SIZE);
    const file = path.join(workDir, `${provider}-report.bin`);
    writeFileSync(file, bytes);
    const context = await browser.newContext({ locale, acceptDownloads: true });
    try {
      const page = await context.newPage();
      await signIn(page, member.account, PASSWORD);
      await page.waitForURL(/\/personal/);
      await page.goto(`/group/detail/${group.id}`);
      await hydrated(page);
      await page.getByLabel(zh ? "上传文件" : "Upload files", { exact: true }).setInputFiles(file);
      await openTransfers(page);
      const row = transferPanel(page).getByRole("listitem", { name: path.basename(file) });
      await expect(row).toContainText(zh ? "已上传" : "Uploaded", { timeout: 120_000 });
      const listed = table(page).getByRole("row").filter({ hasText: path.basename(file) });
      await expect(listed).toHaveCount(1);
      await auditPage(page, `group page on ${provider} storage`);
      await screenshot(page, `object-storage-group-${provider}-${zh ? "zh" : "en"}`);

      // In the store: the whole file under the storage's folder and the group's home; nothing staged
      // left (Azure stages next to the folder, in "<folder>.ferry-tmp/", which this prefix takes in).
      const objects = await store.list(`e2e/${storageName}`);
      const key = [...objects.keys()].find((k) => k.endsWith(`/${path.basename(file)}`));
      expect(key, [...objects.keys()].join(", ")).toBe(`e2e/${storageName}${group.home}/${path.basename(file)}`);
      expect(objects.get(key!)).toBe(SIZE);
      expect([...objects.keys()].filter((k) => k !== key && !k.endsWith("/")), "no staged parts or temporary blobs left").toEqual([]);

      // Downloaded back through the page, byte-identical.
      await listed.getByRole("checkbox").check();
      const arrived = page.waitForEvent("download");
      await page.getByRole("toolbar", { name: zh ? "文件操作" : "File actions" }).getByRole("button", { name: zh ? "下载" : "Download", exact: true }).click();
      const download = await arrived;
      expect(readFileSync((await download.path())!).equals(bytes)).toBe(true);
    } finally {
      await context.close();
    }

    // The storage holds the group's home: it cannot be deleted while it does (4620, StorageInUse).
    const refused = await call("DELETE", `/api/admin/storages/${storage.id}`, { token: admin });
    expect(refused.code).toBe(4620);
  });
}
