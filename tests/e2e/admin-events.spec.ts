import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Page } from "@playwright/test";
import type { AdminEvent } from "../../contract/events";
import { PERMISSION_FULL } from "../../contract/permissions";
import { e2eEventBinDir } from "../support/e2e-env";
import { adminToken, createUser, ok, uniqueAccount } from "../support/e2e-helpers";
import { auditPage, auditWithoutScript, consoleScreens, noScriptConsole, noScriptShot, openConsoleScreen } from "./admin-console";
import { expect, hydrated, openTransfers, screenshot, signIn, test } from "./fixtures";

/**
 * The admin console's Events screen (admin document section 3 "Event"; docs/events.md), against the
 * real engine and a real executable in its events directory: the administrator adds an event in the
 * dialog, test-runs it (exit code and output shown), a user uploads a file in the browser, and the
 * event's run log shows that run (its path, its result, its output); the same screen in Chinese;
 * delete asks first. The executable records the arguments it got, so the test also sees that the
 * file name reached it as one argument.
 */

const PASSWORD = "Ev3nts!Pass";
const SCREENS = "/tmp/ferry/screens/events";

async function shot(page: Page, name: string) {
  mkdirSync(SCREENS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENS, `${name}.png`), fullPage: true });
  await screenshot(page, `admin-events-${name}`);
}

/** The recording executable: its argv as JSON into `out`, one file per run, and a line on stdout. */
function writeRecorder(): { executable: string; out: string } {
  const bin = e2eEventBinDir();
  const out = mkdtempSync(path.join(tmpdir(), "ferry-e2e-event-out-"));
  const executable = path.join(bin, `record-${Date.now()}.js`);
  writeFileSync(
    executable,
    `#!${process.execPath}
const fs = require("fs");
fs.writeFileSync(${JSON.stringify(out)} + "/" + Date.now() + "-" + process.pid + ".json", JSON.stringify(process.argv.slice(2)));
process.stdout.write("got " + process.argv[3] + "\\n");
`,
  );
  chmodSync(executable, 0o755);
  return { executable, out };
}

async function eventNamed(name: string): Promise<AdminEvent | undefined> {
  const page = await ok<{ list: AdminEvent[] }>("GET", `/api/admin/events?pageNum=1&pageSize=10&search=${encodeURIComponent(name)}`, { token: await adminToken() });
  return page.list.find((e) => e.name === name);
}

test("an event added in the console runs on a user's upload in the browser, and its run log shows it (en, zh)", async ({ browser }) => {
  test.setTimeout(120_000);
  const { executable, out } = writeRecorder();
  const name = uniqueAccount("on-upload");
  const { context, page } = await openConsoleScreen(browser, "en-US", "/admin/settings/events", "Events");
  await expect(page.getByText(e2eEventBinDir())).toBeVisible();

  // Add: the dialog, with the engine's rules shown before saving (a command line it cannot split).
  await page.getByRole("link", { name: "Add event" }).click();
  const dialog = page.getByRole("dialog", { name: "Add event" });
  await dialog.getByLabel("Event name").fill(name);
  await dialog.getByLabel("Type").selectOption("uploaded");
  await expect(dialog.getByLabel("Operation")).toHaveValue("run_executable");
  await dialog.getByLabel("Executable path").fill(executable);
  await dialog.getByLabel("Command line").fill("--file '{path");
  await dialog.getByLabel("Command line").blur();
  await expect(dialog.getByText(/The command line cannot be split into arguments/)).toBeVisible();
  await dialog.getByLabel("Command line").fill("--file {path} {user}");
  await dialog.getByLabel("Completion wait time (seconds)").fill("10");
  await dialog.getByLabel("Remark").fill("records the upload");
  await auditPage(page, "event dialog (en)");
  await shot(page, "dialog-en");
  await dialog.getByRole("button", { name: "Confirm" }).click();
  await expect(page.getByText("Event saved")).toBeVisible();
  await expect(dialog).toBeHidden();
  const event = await eventNamed(name);
  expect(event).toMatchObject({ type: "uploaded", status: "activated", executable, args: ["--file", "{path}", "{user}"], waitSeconds: 10, remark: "records the upload" });
  const row = page.getByRole("row").filter({ hasText: name });
  await expect(row).toContainText("Activated");
  await expect(row).toContainText("Uploaded");

  // Test run: exit code and output, in a dialog.
  await row.getByRole("button", { name: `Test ${name}` }).click();
  const test1 = page.getByRole("dialog", { name: `Test run of ${name}` });
  await expect(test1.getByText("The test run succeeded")).toBeVisible({ timeout: 20_000 });
  await expect(test1.getByText("Exit code 0")).toBeVisible();
  await expect(test1.getByLabel("Standard output")).toContainText("got /ferry-event-test/sample file.txt");
  await auditPage(page, "event test run (en)");
  await shot(page, "test-run-en");
  await test1.getByRole("button", { name: "Confirm" }).click();
  await expect(test1).toBeHidden();

  // A user uploads a file through the browser.
  const account = uniqueAccount("evup");
  await createUser(account, PASSWORD, { permission: PERMISSION_FULL });
  const user = await browser.newContext({ locale: "en-US" });
  const userPage = await user.newPage();
  await signIn(userPage, account, PASSWORD);
  await expect(userPage).toHaveURL(/\/personal$/);
  await hydrated(userPage);
  const dir = mkdtempSync(path.join(tmpdir(), "ferry-e2e-event-file-"));
  const fileName = "quarterly report; $(touch x).txt";
  writeFileSync(path.join(dir, fileName), "numbers\n");
  await userPage.getByLabel("Upload files").setInputFiles(path.join(dir, fileName));
  await openTransfers(userPage);
  await expect(userPage.getByRole("region", { name: "Transfers" }).getByRole("listitem", { name: fileName })).toContainText("Uploaded", { timeout: 30_000 });
  await user.close();

  // The run log: its line, with the path, the trigger and the result; the row opens to the output.
  await expect.poll(() => readdirSync(out).length, { timeout: 15_000 }).toBe(2);
  const argvs = readdirSync(out).map((f) => JSON.parse(readFileSync(path.join(out, f), "utf8")) as string[]);
  expect(argvs).toContainEqual(["--file", `/${fileName}`, account]);
  await page.getByRole("link", { name: `Run log of ${name}` }).click();
  const log = page.getByRole("region", { name: `Run log: ${name}` });
  const line = log.getByRole("row").filter({ hasText: `/${fileName}` });
  await expect(line).toContainText("Uploaded");
  await expect(line).toContainText("Exit code 0");
  await expect(log.getByRole("row").filter({ hasText: "Test run" })).toHaveCount(1);
  await line.getByRole("button", { name: /Expand row/ }).click();
  await expect(log.getByLabel("Standard output")).toContainText(`got /${fileName}`);
  await page.mouse.move(0, 0);
  await auditPage(page, "event run log (en)");
  await shot(page, "run-log-en");
  await consoleScreens(page, "admin-events-en");

  // The same screen in Chinese.
  const zh = await openConsoleScreen(browser, "zh-CN", `/admin/settings/events?runs=${event!.id}`, "事件");
  const zhLog = zh.page.getByRole("region", { name: `运行日志：${name}` });
  await expect(zhLog.getByRole("row").filter({ hasText: `/${fileName}` })).toContainText("已上传");
  await expect(zhLog.getByRole("row").filter({ hasText: `/${fileName}` })).toContainText("退出码 0");
  await expect(zh.page.getByRole("row").filter({ hasText: name }).first()).toContainText("已激活");
  await auditPage(zh.page, "event run log (zh)");
  await shot(zh.page, "run-log-zh");
  await zh.page.getByRole("link", { name: "添加事件" }).click();
  await expect(zh.page.getByRole("dialog", { name: "添加事件" }).getByLabel("完成等待时间（秒）")).toBeVisible();
  await auditPage(zh.page, "event dialog (zh)");
  await shot(zh.page, "dialog-zh");
  await zh.context.close();

  // Deactivate: the row says so; delete asks first, then the event and its log are gone.
  await row.getByRole("button", { name: `Deactivate ${name}` }).click();
  await expect(page.getByText("Event deactivated")).toBeVisible();
  await expect(row).toContainText("Inactivated");
  expect((await eventNamed(name))?.status).toBe("inactivated");
  await row.getByRole("button", { name: `Delete ${name}` }).click();
  const confirm = page.getByRole("dialog", { name: "Delete event" });
  await expect(confirm).toContainText(`Delete the event "${name}" and its run log?`);
  await confirm.getByRole("button", { name: "Delete" }).click();
  await expect(page.getByText("Event deleted")).toBeVisible();
  await expect.poll(async () => await eventNamed(name)).toBeUndefined();
  await context.close();
});




test("without JavaScript: add an event in the page's form, edit it, deactivate and activate it, test it, and delete it after the page's confirmation (en, zh)", async ({ browser }) => {
  test.setTimeout(120_000);
  const { executable } = writeRecorder();
  const name = uniqueAccount("nojs-event");
  const { context, page } = await noScriptConsole(browser, "en-US");
  await page.goto("/admin/settings/events");
  await expect(page.getByRole("heading", { level: 1, name: "Events" })).toBeVisible();

  // Add: the form is a section of the page; a refusal comes back to it with what was typed.
  await page.getByRole("link", { name: "Add event" }).click();
  await expect(page).toHaveURL(/[?&]edit=new/);
  let form = page.getByRole("region", { name: "Add event" });
  await form.getByLabel("Event name").fill(name);
  await form.getByLabel("Type").selectOption("uploaded");
  await form.getByLabel("Executable path").fill(executable);
  await form.getByLabel("Command line").fill("--file '{path");
  await form.getByRole("button", { name: "Confirm" }).click();
  form = page.getByRole("region", { name: "Add event" });
  await expect(form.getByText(/The command line cannot be split into arguments/)).toBeVisible();
  await expect(form.getByLabel("Event name")).toHaveValue(name);
  expect(await eventNamed(name)).toBeUndefined();
  await form.getByLabel("Command line").fill("--file {path} {user}");
  await form.getByLabel("Completion wait time (seconds)").fill("10");
  await form.getByLabel("Remark").fill("added without JavaScript");
  await auditWithoutScript(page, "en-US", "event form without JavaScript (en)");
  await noScriptShot(page, "events-form-en");
  await form.getByRole("button", { name: "Confirm" }).click();
  await expect(page.getByText("Event saved")).toBeVisible();
  await expect(page.getByRole("region", { name: "Add event" })).toHaveCount(0);
  const added = await eventNamed(name);
  expect(added).toMatchObject({ type: "uploaded", status: "activated", executable, args: ["--file", "{path}", "{user}"], waitSeconds: 10, remark: "added without JavaScript" });
  const row = page.getByRole("row").filter({ hasText: name });
  await expect(row).toContainText("Activated");

  // Edit: the same form with the event's values.
  await row.getByRole("link", { name: `Edit ${name}` }).click();
  form = page.getByRole("region", { name: "Edit event" });
  await expect(form.getByLabel("Event name")).toHaveValue(name);
  await expect(form.getByLabel("Command line")).toHaveValue("--file {path} {user}");
  await form.getByLabel("Type").selectOption("downloaded");
  await form.getByLabel("Remark").fill("edited without JavaScript");
  await form.getByRole("button", { name: "Confirm" }).click();
  await expect(page.getByText("Event saved")).toBeVisible();
  expect(await eventNamed(name)).toMatchObject({ id: added!.id, type: "downloaded", status: "activated", remark: "edited without JavaScript" });
  await expect(row).toContainText("Downloaded");

  // Deactivate, then activate: plain forms, each answered by the list and a toast.
  await row.getByRole("button", { name: `Deactivate ${name}` }).click();
  await expect(page.getByText("Event deactivated")).toBeVisible();
  await expect(row).toContainText("Inactivated");
  expect((await eventNamed(name))?.status).toBe("inactivated");
  await row.getByRole("button", { name: `Activate ${name}` }).click();
  await expect(page.getByText("Event activated")).toBeVisible();
  await expect(row).toContainText("Activated");
  expect((await eventNamed(name))?.status).toBe("activated");

  // Test: the run shows as a section of the page.
  await row.getByRole("button", { name: `Test ${name}` }).click();
  const tested = page.getByRole("region", { name: `Test run of ${name}` });
  await expect(tested.getByText("The test run succeeded")).toBeVisible();
  await expect(tested.getByText("Exit code 0")).toBeVisible();
  await expect(tested.getByLabel("Standard output")).toContainText("got /ferry-event-test/sample file.txt");

  // Delete: the page asks first (Cancel keeps the event), then the event is gone.
  await row.getByRole("button", { name: `Delete ${name}` }).click();
  let confirm = page.getByRole("alertdialog", { name: `Delete the event "${name}" and its run log?` });
  await expect(confirm).toBeVisible();
  await auditWithoutScript(page, "en-US", "event delete confirmation without JavaScript (en)");
  await noScriptShot(page, "events-delete-en");
  await confirm.getByRole("link", { name: "Cancel" }).click();
  await expect(page.getByRole("alertdialog")).toHaveCount(0);
  expect(await eventNamed(name)).toBeDefined();
  await row.getByRole("button", { name: `Delete ${name}` }).click();
  confirm = page.getByRole("alertdialog", { name: `Delete the event "${name}" and its run log?` });
  await confirm.getByRole("button", { name: "Delete" }).click();
  await expect(page.getByText("Event deleted")).toBeVisible();
  await expect(page.getByRole("row").filter({ hasText: name })).toHaveCount(0);
  expect(await eventNamed(name)).toBeUndefined();
  await context.close();

  // Chinese: add in the page's form, deactivate, delete after the confirmation.
  const zhName = uniqueAccount("nojs-event-zh");
  const zh = await noScriptConsole(browser, "zh-CN");
  await zh.page.goto("/admin/settings/events");
  await zh.page.getByRole("link", { name: "添加事件" }).click();
  const zhForm = zh.page.getByRole("region", { name: "添加事件" });
  await zhForm.getByLabel("事件名称").fill(zhName);
  await zhForm.getByLabel("可执行文件路径").fill(executable);
  await auditWithoutScript(zh.page, "zh-CN", "event form without JavaScript (zh)");
  await noScriptShot(zh.page, "events-form-zh");
  await zhForm.getByRole("button", { name: "确定" }).click();
  await expect(zh.page.getByText("事件已保存")).toBeVisible();
  expect(await eventNamed(zhName)).toMatchObject({ status: "activated", executable });
  const zhRow = zh.page.getByRole("row").filter({ hasText: zhName });
  await zhRow.getByRole("button", { name: `停用 ${zhName}` }).click();
  await expect(zh.page.getByText("事件已停用")).toBeVisible();
  expect((await eventNamed(zhName))?.status).toBe("inactivated");
  await zhRow.getByRole("button", { name: `删除 ${zhName}` }).click();
  const zhConfirm = zh.page.getByRole("alertdialog", { name: `删除事件“${zhName}”及其运行日志？` });
  await auditWithoutScript(zh.page, "zh-CN", "event delete confirmation without JavaScript (zh)");
  await noScriptShot(zh.page, "events-delete-zh");
  await zhConfirm.getByRole("button", { name: "删除" }).click();
  await expect(zh.page.getByText("事件已删除")).toBeVisible();
  expect(await eventNamed(zhName)).toBeUndefined();
  await zh.context.close();
});
