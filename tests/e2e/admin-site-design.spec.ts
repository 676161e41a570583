import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Locator } from "@playwright/test";
import sharp from "sharp";
import { ADMIN_PASSWORD, adminToken, ok, resetDesignAndLicence } from "../support/e2e-helpers";
import { signLicence } from "../support/licence";
import { adminConsolePage, adminSignIn, auditPage, consoleScreens } from "./admin-console";
import { expect, hydrated, screenshot, test } from "./fixtures";

/**
 * The console's site design screen and licence (issue 15; admin document sections 1, 3 "Site design",
 * "License", 5): locked in the free edition with the reason; an enterprise licence uploaded on the
 * screen unlocks it; a logo upload, a button colour and a login-box position reach the live preview
 * and then the real sign-in page; defaults restored and the licence removed behind confirmations.
 * The run's engine is shared: afterEach puts the design and the licence back.
 */

const dir = mkdtempSync(path.join(tmpdir(), "ferry-e2e-site-"));
const licenceFile = path.join(dir, "enterprise.lic");
writeFileSync(licenceFile, signLicence({ edition: "enterprise", licensee: "Acme Ltd", id: "e2e-site-design" }));
const logoFile = path.join(dir, "logo.png");
const wideLogoFile = path.join(dir, "wide-logo.png");
const iconFile = path.join(dir, "icon.png");
const backgroundFile = path.join(dir, "background.jpg");

test.beforeAll(async () => {
  const png = (width: number, height: number) => sharp({ create: { width, height, channels: 3, background: { r: 20, g: 120, b: 200 } } });
  writeFileSync(logoFile, await png(150, 60).png().toBuffer());
  writeFileSync(wideLogoFile, await png(300, 100).png().toBuffer());
  writeFileSync(iconFile, await png(32, 32).png().toBuffer());
  writeFileSync(backgroundFile, await png(800, 450).jpeg().toBuffer());
});

test.afterEach(() => resetDesignAndLicence());
test.afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TEXT = {
  en: {
    locale: "en-US",
    title: "Site Design",
    locked: /enterprise edition.*Free edition/,
    licenceFile: "Licence file",
    uploadLicence: "Upload licence",
    activated: "Licence activated",
    logoFile: "Logo file",
    uploadLogo: "Upload logo",
    uploaded: "Logo uploaded",
    currentLogo: "Current logo",
    colour: "Button colour",
    bottomRight: "Bottom right",
    save: "Save",
    saved: "Site design saved",
    restore: "Restore defaults",
    restored: "Site design restored to the defaults",
    removeLicence: "Remove licence",
    removed: "Licence removed",
    signIn: "Sign in",
    product: "Ferry",
  },
  zh: {
    locale: "zh-CN",
    title: "站点设计",
    locked: /企业版功能.*免费版/,
    licenceFile: "许可证文件",
    uploadLicence: "上传许可证",
    activated: "许可证已激活",
    logoFile: "Logo 文件",
    uploadLogo: "上传 Logo",
    uploaded: "Logo 已上传",
    currentLogo: "当前 Logo",
    colour: "按钮颜色",
    bottomRight: "右下",
    save: "保存",
    saved: "站点设计已保存",
    restore: "恢复默认",
    restored: "站点设计已恢复默认",
    removeLicence: "移除许可证",
    removed: "许可证已移除",
    signIn: "登录",
    product: "飞渡",
  },
} as const;

/** Whether `box` sits in the bottom-right corner of `frame` (within `slack` pixels). */
async function inBottomRight(box: Locator, frame: Locator, slack: number) {
  const [b, f] = [await box.boundingBox(), await frame.boundingBox()];
  return b !== null && f !== null && f.x + f.width - (b.x + b.width) < slack && f.y + f.height - (b.y + b.height) < slack;
}

for (const lang of ["en", "zh"] as const) {
  test(`${lang}: locked without a licence; an uploaded enterprise licence unlocks it; logo, colour and position reach the preview and the sign-in page; defaults restored`, async ({ browser }) => {
    test.setTimeout(120_000);
    const text = TEXT[lang];
    const { context, page } = await adminConsolePage(browser, text.locale);
    const visitor = await browser.newContext({ locale: text.locale, viewport: { width: 1440, height: 900 } });
    try {
      await page.goto("/admin/site-design");
      await hydrated(page);
      await expect(page.getByRole("heading", { level: 1, name: text.title })).toBeVisible();
      // Free edition: the reason is shown and nothing can be changed.
      await expect(page.getByRole("status").filter({ hasText: text.locked })).toBeVisible();
      await expect(page.getByRole("button", { name: text.save })).toBeDisabled();
      await expect(page.getByLabel(text.logoFile)).toBeDisabled();
      await auditPage(page, `site design, locked (${lang})`);
      await consoleScreens(page, `admin-site-design-locked-${lang}`);

      // The licence, uploaded on the screen.
      await page.getByLabel(text.licenceFile).setInputFiles(licenceFile);
      await page.getByRole("button", { name: text.uploadLicence }).click();
      await expect(page.getByText(text.activated)).toBeVisible();
      await expect(page.getByText("Acme Ltd")).toBeVisible();
      await expect(page.getByRole("status").filter({ hasText: text.locked })).toHaveCount(0);

      // A logo.
      await page.getByLabel(text.logoFile).setInputFiles(logoFile);
      await page.getByRole("button", { name: text.uploadLogo }).click();
      await expect(page.getByText(text.uploaded)).toBeVisible();
      await expect(page.getByRole("img", { name: text.currentLogo })).toBeVisible();
      await hydrated(page);

      // Colour and position: the preview follows before anything is saved.
      const preview = page.getByTestId("signin-preview");
      const previewBox = preview.locator("main");
      await expect(previewBox.locator("img")).toHaveAttribute("src", /^\/customize\/logo-[0-9a-f]{16}\.png$/);
      await page.getByLabel(text.colour).fill("#0066cc");
      await expect(page.getByTestId("preview-button")).toHaveCSS("background-color", "rgb(0, 102, 204)");
      expect(await inBottomRight(previewBox, preview, 40)).toBe(false);
      // The radio itself is visually hidden inside its grid cell: the click lands on the cell, as a person's does.
      await page.getByRole("radio", { name: text.bottomRight }).check({ force: true });
      await expect.poll(() => inBottomRight(previewBox, preview, 40)).toBe(true);
      await auditPage(page, `site design, unlocked (${lang})`);
      await consoleScreens(page, `admin-site-design-${lang}`);
      // The images and the licence, below the fold of the console's scrolling main area.
      await page.getByRole("img", { name: text.currentLogo }).scrollIntoViewIfNeeded();
      await screenshot(page, `admin-site-design-images-${lang}`);
      await page.getByRole("button", { name: text.save }).click();
      await expect(page.getByText(text.saved)).toBeVisible();

      // The real sign-in page, for a visitor.
      const signin = await visitor.newPage();
      await signin.goto("/signin");
      const logo = signin.getByRole("main").getByRole("img", { name: text.product });
      await expect(logo).toBeVisible();
      expect(await logo.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(150);
      await expect(signin.getByRole("button", { name: text.signIn })).toHaveCSS("background-color", "rgb(0, 102, 204)");
      const viewport = signin.viewportSize()!;
      const box = (await signin.getByRole("main").boundingBox())!;
      expect(box.x + box.width).toBeGreaterThan(viewport.width - 100);
      expect(box.y + box.height).toBeGreaterThan(viewport.height - 100);
      await auditPage(signin, `sign-in page with the design (${lang})`);
      await signin.screenshot({ path: path.join("test-results", "screens", `signin-site-design-${lang}.png`) });

      // Back to the defaults, after the confirmation.
      await page.getByRole("button", { name: text.restore }).click();
      await page.getByRole("dialog").getByRole("button", { name: text.restore }).click();
      await expect(page.getByText(text.restored)).toBeVisible();
      await expect(page.getByRole("img", { name: text.currentLogo })).toHaveCount(0);
      await signin.reload();
      await expect(signin.getByRole("main").getByRole("img")).toHaveCount(0);
      await expect(signin.getByRole("button", { name: text.signIn })).not.toHaveCSS("background-color", "rgb(0, 102, 204)");

      // The licence removed, after the confirmation: locked again.
      await page.getByRole("button", { name: text.removeLicence }).click();
      await page.getByRole("dialog").getByRole("button", { name: text.removeLicence }).click();
      await expect(page.getByText(text.removed)).toBeVisible();
      await expect(page.getByRole("status").filter({ hasText: text.locked })).toBeVisible();
    } finally {
      await visitor.close();
      await context.close();
    }
  });
}

test("without JavaScript: the images upload as plain multipart forms (a refusal shown in the form), removal and restore ask on the page first", async ({ browser }) => {
  test.setTimeout(90_000);
  await ok("POST", "/api/admin/licence", { token: await adminToken(), body: { licence: signLicence({ edition: "enterprise", licensee: "Acme Ltd", id: "e2e-site-nojs" }) } });
  const context = await browser.newContext({ locale: "en-US", javaScriptEnabled: false, viewport: { width: 1440, height: 900 } });
  try {
    const page = await context.newPage();
    await adminSignIn(page, "admin", ADMIN_PASSWORD);
    await expect(page).toHaveURL(/\/admin$/);
    await page.goto("/admin/site-design");
    await expect(page.getByRole("heading", { level: 1, name: "Site Design" })).toBeVisible();

    // A logo over 160×70 is refused by the engine; the message is shown with the form.
    await page.getByLabel("Logo file").setInputFiles(wideLogoFile);
    await page.getByRole("button", { name: "Upload logo" }).click();
    await expect(page.getByText("The image is 300×100 pixels; at most 160×70 is allowed")).toBeVisible();
    await expect(page.getByRole("img", { name: "Current logo" })).toHaveCount(0);

    // Each image, uploaded.
    for (const [file, label, button, done, current] of [
      [logoFile, "Logo file", "Upload logo", "Logo uploaded", "Current logo"],
      [iconFile, "Icon file", "Upload icon", "Icon uploaded", "Current icon"],
      [backgroundFile, "Background file", "Upload background", "Login background uploaded", "Current login background"],
    ] as const) {
      await page.getByLabel(label).setInputFiles(file);
      await page.getByRole("button", { name: button }).click();
      await expect(page.getByText(done)).toBeVisible();
      await expect(page.getByRole("img", { name: current })).toBeVisible();
    }
    const design = await ok<{ assets: Record<string, { url: string } | null> }>("GET", "/api/admin/site-design", { token: await adminToken() });
    expect(design.assets.logo?.url).toMatch(/^\/customize\/logo-[0-9a-f]{16}\.png$/);
    expect(design.assets.icon?.url).toMatch(/^\/customize\/icon-/);
    expect(design.assets.background?.url).toMatch(/^\/customize\/background-/);
    // (axe needs scripts in the page: these states are audited by the tests with JavaScript.)
    await page.getByRole("img", { name: "Current logo" }).scrollIntoViewIfNeeded();
    await consoleScreens(page, "admin-site-design-nojs-en");

    // Remove the logo: asked on the page first, nothing removed until confirmed.
    await page.getByRole("button", { name: "Remove logo" }).click();
    const ask = page.getByRole("alertdialog").filter({ hasText: "Remove this image?" });
    await expect(ask).toBeVisible();
    await expect(page.getByRole("img", { name: "Current logo" })).toBeVisible();
    await ask.getByRole("button", { name: "Remove" }).click();
    await expect(page.getByText("Logo removed")).toBeVisible();
    await expect(page.getByRole("img", { name: "Current logo" })).toHaveCount(0);
    await expect(page.getByRole("img", { name: "Current icon" })).toBeVisible();

    // Restore the defaults: the same, on the page.
    await page.getByRole("button", { name: "Restore defaults" }).click();
    await page.getByRole("alertdialog").getByRole("button", { name: "Restore defaults" }).click();
    await expect(page.getByText("Site design restored to the defaults")).toBeVisible();
    await expect(page.getByRole("img", { name: "Current icon" })).toHaveCount(0);
    await expect(page.getByRole("img", { name: "Current login background" })).toHaveCount(0);
  } finally {
    await context.close();
  }
});
