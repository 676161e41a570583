import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import sharp from "sharp";
import { PERMISSION_FULL } from "../../contract/permissions";
import { E2E_FILE_PORT } from "../support/e2e-env";
import { adminToken, createUser, login, ok, resetDesignAndLicence, uniqueAccount } from "../support/e2e-helpers";
import { connectFiles } from "../support/file-client";
import { signLicence } from "../support/licence";
import { adminConsolePage, auditPage, consoleScreens } from "./admin-console";
import { expect, hydrated, screenshot, seedFile, signIn, test } from "./fixtures";

/**
 * The watermark (issue 15; docs/file-server.md "Watermark"), end to end in Chromium: in the
 * enterprise edition the administrator uploads a watermark image on Site design, turns the
 * watermark on in General settings with a position and opacity, and a user's image preview shows
 * it — drawn by the engine into the image the file server sends, so its pixels carry it.
 */

const FILE_URL = `http://127.0.0.1:${E2E_FILE_PORT}`;
const PASSWORD = "Watermark#2026";
const dir = mkdtempSync(path.join(tmpdir(), "ferry-e2e-watermark-"));
const markFile = path.join(dir, "mark.png");
const BLUE = [20, 60, 200];
const GREY = [225, 228, 232];

test.beforeAll(async () => {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="360" height="90"><rect width="360" height="90" fill="rgb(${BLUE.join(",")})"/><text x="180" y="60" font-family="sans-serif" font-size="40" font-weight="bold" fill="white" text-anchor="middle">CONFIDENTIAL</text></svg>`;
  writeFileSync(markFile, await sharp(Buffer.from(svg)).png().toBuffer());
});
test.afterEach(() => resetDesignAndLicence((token) => ok("PATCH", "/api/admin/settings/general", { token, body: { watermark: false, watermarkPosition: 9, watermarkOpacity: 50 } })));
test.afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TEXT = {
  en: {
    locale: "en-US",
    markFile: "Watermark file",
    upload: "Upload watermark",
    uploaded: "Watermark uploaded",
    current: "Current watermark",
    watermark: "Watermark",
    bottomRight: "Bottom right",
    opacity: "Watermark opacity",
    save: "Save",
    saved: "Settings saved. They apply from the next request.",
    help: /Ferry has no video preview, so no video is watermarked/,
    close: "Close",
    svgRefused: "The watermark is on: only JPEG, PNG and GIF images up to 30 MB and 50,000,000 pixels can be previewed. Download the file to see it",
  },
  zh: {
    locale: "zh-CN",
    markFile: "水印文件",
    upload: "上传水印",
    uploaded: "水印已上传",
    current: "当前水印",
    watermark: "水印",
    bottomRight: "右下",
    opacity: "水印不透明度",
    save: "保存",
    saved: "设置已保存，从下一个请求起生效。",
    help: /飞渡没有视频预览，因此视频不加水印/,
    close: "关闭",
    svgRefused: "水印已开启：仅能预览不超过 30 MB、50,000,000 像素的 JPEG、PNG 和 GIF 图片，请下载后查看",
  },
} as const;

for (const lang of ["en", "zh"] as const) {
  test(`${lang}: the administrator uploads a watermark and turns it on; a user's image preview shows it`, async ({ browser }) => {
    test.setTimeout(120_000);
    const text = TEXT[lang];
    await ok("POST", "/api/admin/licence", { token: await adminToken(), body: { licence: signLicence({ edition: "enterprise", id: `e2e-watermark-${lang}` }) } });
    const { context, page } = await adminConsolePage(browser, text.locale);
    const account = uniqueAccount("mark");
    const userContext = await browser.newContext({ locale: text.locale, viewport: { width: 1440, height: 900 } });
    try {
      // Site design: the watermark image.
      await page.goto("/admin/site-design");
      await hydrated(page);
      await page.getByLabel(text.markFile).setInputFiles(markFile);
      await page.getByRole("button", { name: text.upload }).click();
      await expect(page.getByText(text.uploaded)).toBeVisible();
      const current = page.getByRole("img", { name: text.current });
      await expect(current).toHaveAttribute("src", /^\/customize\/watermark-[0-9a-f]{16}\.png$/);
      // Loaded through the web's /customize route, not a broken-image icon.
      await expect.poll(() => current.evaluate((img: HTMLImageElement) => (img.complete ? img.naturalWidth : 0))).toBe(360);
      await current.scrollIntoViewIfNeeded();
      await auditPage(page, `site design with a watermark (${lang})`);
      await consoleScreens(page, `watermark-site-design-${lang}`);

      // General settings: on, bottom right, fully opaque.
      await page.goto("/admin/settings/general");
      await hydrated(page);
      await expect(page.getByText(text.help)).toBeVisible();
      await page.getByRole("switch", { name: text.watermark, exact: true }).setChecked(true);
      await page.getByRole("radio", { name: text.bottomRight }).check({ force: true });
      await page.getByLabel(text.opacity).fill("100");
      await page.getByRole("button", { name: text.save }).click();
      await expect(page.getByRole("status").filter({ hasText: text.saved })).toBeVisible();
      await expect
        .poll(async () => ok("GET", "/api/admin/settings/general", { token: await adminToken() }))
        .toMatchObject({ watermark: true, watermarkPosition: 9, watermarkOpacity: 100 });
      await expect(page.getByRole("switch", { name: text.watermark, exact: true })).toBeChecked();
      await auditPage(page, `general settings with the watermark on (${lang})`);
      await consoleScreens(page, `watermark-general-${lang}`);

      // A user previews an image.
      await createUser(account, PASSWORD, { permission: PERMISSION_FULL });
      const socketToken = (await login(account, PASSWORD)).data!.websocket_token;
      const files = await connectFiles(FILE_URL, socketToken);
      const photo = await sharp({ create: { width: 1200, height: 800, channels: 3, background: { r: GREY[0]!, g: GREY[1]!, b: GREY[2]! } } }).png().toBuffer();
      await seedFile(files, socketToken, "/photo.png", new Uint8Array(photo));
      await seedFile(files, socketToken, "/drawing.svg", `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>`);
      await files.close();
      const user = await userContext.newPage();
      await signIn(user, account, PASSWORD);
      await user.waitForURL(/\/personal/);
      await hydrated(user);
      const name = user.getByRole("region", { name: /^Files in|中的文件$/ }).getByRole("button", { name: "photo.png", exact: true });
      await name.dblclick();
      const dialog = user.getByRole("dialog", { name: "photo.png" });
      const image = dialog.getByRole("img", { name: "photo.png" });
      await expect(image).toHaveAttribute("src", new RegExp(`^${FILE_URL}/preview/`));
      await expect.poll(() => image.evaluate((img: HTMLImageElement) => (img.complete ? img.naturalWidth : 0))).toBe(1200);

      // What the browser drew: the watermark's blue in the bottom-right corner, the photo's grey elsewhere.
      const shot = await image.screenshot();
      const { data, info } = await sharp(shot).removeAlpha().raw().toBuffer({ resolveWithObject: true });
      const at = (fx: number, fy: number) => {
        const i = (Math.floor(info.height * fy) * info.width + Math.floor(info.width * fx)) * 3;
        return [data[i]!, data[i + 1]!, data[i + 2]!];
      };
      const near = (pixel: number[], rgb: number[]) => pixel.every((v, i) => Math.abs(v - rgb[i]!) <= 8);
      expect(near(at(0.92, 0.94), BLUE), `bottom right ${at(0.92, 0.94).join(",")}`).toBe(true);
      expect(near(at(0.1, 0.1), GREY), `top left ${at(0.1, 0.1).join(",")}`).toBe(true);
      expect(near(at(0.5, 0.5), GREY), `middle ${at(0.5, 0.5).join(",")}`).toBe(true);
      await auditPage(user, `image preview with the watermark (${lang})`);
      await screenshot(user, `watermark-preview-${lang}`);
      await user.setViewportSize({ width: 1280, height: 900 });
      await screenshot(user, `watermark-preview-${lang}-1280`);
      await user.setViewportSize({ width: 1440, height: 900 });
      await dialog.getByRole("button", { name: text.close }).click();
      await expect(dialog).toBeHidden();

      // An SVG cannot carry the watermark: its preview is refused, saying why.
      await user.getByRole("region", { name: /^Files in|中的文件$/ }).getByRole("button", { name: "drawing.svg", exact: true }).dblclick();
      await expect(user.getByRole("alert").filter({ hasText: text.svgRefused })).toBeVisible();
      await expect(user.getByRole("dialog", { name: "drawing.svg" })).toHaveCount(0);
      await screenshot(user, `watermark-svg-refused-${lang}`);
    } finally {
      await userContext.close();
      await context.close();
    }
  });
}
