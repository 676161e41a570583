import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Page } from "@playwright/test";
import { blake3 } from "hash-wasm";
import { PERMISSION_FULL } from "../../contract/permissions";
import { adminToken, createUser, login, ok, uniqueAccount } from "../support/e2e-helpers";
import { E2E_FILE_PORT, E2E_LOCAL_CLIENT_PORTS, E2E_WEB_PORT } from "../support/e2e-env";
import { connectFiles } from "../support/file-client";
import { type Bridge, exposeInNamespace, linkCounters, linkDown, linkUp, SERVER_IP, wanLinkUnavailable } from "../support/wan-link";
import { expect, hydrated, openTransfers, signIn, test } from "./fixtures";

/**
 * Uploads from the browser over a long, lossy link (issue 16): Chromium runs inside the emulated
 * link's client namespace (tests/support/chromium-in-client-ns.sh) and reaches the run's web and
 * engine at 198.18.2.2, the server end of ../shared/tools/wan-link.sh's link (profile a: 100 Mbit/s,
 * 100 ms RTT, 2 % loss each way, client CUBIC as a stock desktop). In the server namespace a bridge
 * passes each connection on to the host's e2e servers through a Unix socket, so every byte the page
 * sends crosses the link. Needs root; without root or the script the tests fail and say how to run
 * them (docs/bench.md, "Tests").
 */

const PROFILE = "a";
const PASSWORD = "W4n#Upload";
const MIB = 1024 * 1024;
const WEB = `http://${SERVER_IP}:${E2E_WEB_PORT}`;
const FILES = `http://${SERVER_IP}:${E2E_FILE_PORT}`;
/** The checks read the stored file on the host's loopback, as any client there would (not over the link). */
const FILES_ON_HOST = `http://127.0.0.1:${E2E_FILE_PORT}`;
/** What the page may talk to: the web and the file server at the far end of the link. */
const LINK_ORIGINS = [`${SERVER_IP}:${E2E_WEB_PORT}`, `${SERVER_IP}:${E2E_FILE_PORT}`].sort();
const workDir = mkdtempSync(path.join(tmpdir(), "ferry-wan-"));

test.use({
  baseURL: WEB,
  launchOptions: {
    executablePath: path.resolve(import.meta.dirname, "../support/chromium-in-client-ns.sh"),
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      // Plain http on an address other than loopback is not a secure context, and the uploader needs
      // one (Web Locks, the hash worker's crypto); users reach Ferry over https, which is.
      `--unsafely-treat-insecure-origin-as-secure=${WEB},${FILES}`,
    ],
  },
});

let bridge: Bridge | undefined;
let linkBuilt = false;

async function takeDown() {
  await bridge?.stop();
  bridge = undefined;
  if (linkBuilt) await linkDown();
  linkBuilt = false;
}

test.beforeAll(async () => {
  // Building the link compiles its delay daemon on first use (and installs iptables, gcc if missing).
  test.setTimeout(180_000);
  const unavailable = wanLinkUnavailable();
  if (unavailable) throw new Error(unavailable);
  try {
    linkBuilt = true;
    // The whole RTT on the server → client direction: the delay daemon then holds only the upload's ACKs.
    await linkUp(PROFILE, { delayOn: "down", srvCc: "bbr", cliCc: "cubic" });
    bridge = await exposeInNamespace([E2E_WEB_PORT, E2E_FILE_PORT]);
  } catch (error) {
    await takeDown();
    throw error;
  }
});

test.afterAll(takeDown);

function makeFile(relative: string, bytes: Buffer): string {
  const full = path.join(workDir, relative);
  mkdirSync(path.dirname(full), { recursive: true });
  writeFileSync(full, bytes);
  return full;
}

/**
 * Every address the page talks to, HTTP and WebSocket. The local desktop client's probe
 * (app/client/probe.client.ts) asks 127.0.0.1 of the browser's own machine (here the client
 * namespace, where nothing listens); everything else must be the far end of the link.
 */
function watchAddresses(page: Page) {
  const origins = new Set<string>();
  const note = (url: string) => {
    const { protocol, host } = new URL(url);
    if (protocol === "data:" || protocol === "blob:") return;
    const local = E2E_LOCAL_CLIENT_PORTS.map((port) => `127.0.0.1:${port}`);
    if (!local.includes(host)) origins.add(host);
  };
  page.on("request", (request) => note(request.url()));
  page.on("websocket", (socket) => note(socket.url()));
  return origins;
}

async function signedInUser(page: Page) {
  const account = uniqueAccount("wan");
  await createUser(account, PASSWORD, { permission: PERMISSION_FULL });
  await signIn(page, account, PASSWORD);
  await expect(page).toHaveURL(`${WEB}/personal`);
  await hydrated(page);
  return (await login(account, PASSWORD)).data!.websocket_token;
}

/** The bytes and the BLAKE3 the engine holds at a path of the personal space. */
async function stored(socketToken: string, filePath: string): Promise<{ bytes: Buffer; hash: string | null }> {
  const files = await connectFiles(FILES_ON_HOST, socketToken);
  try {
    const { hash } = await files.ok("attributes", { groupId: 0, paths: [filePath] });
    const ticket = await files.ok("download", { groupId: 0, paths: [filePath] });
    const response = await fetch(new URL(ticket.url, FILES_ON_HOST));
    expect(response.status).toBe(200);
    return { bytes: Buffer.from(await response.arrayBuffer()), hash };
  } finally {
    await files.close();
  }
}

const row = (page: Page, name: string) => page.getByRole("region", { name: "Transfers" }).getByRole("listitem", { name });

/** PATCH requests to the file server's uploads: whether each was one of Ferry's parallel chunks. */
function watchPatches(page: Page) {
  const patches: { url: string; chunk: boolean }[] = [];
  page.on("request", (request) => {
    if (request.method() === "PATCH" && request.url().includes("/uploads/")) patches.push({ url: request.url(), chunk: request.headers()["ferry-chunk"] === "1" });
  });
  return patches;
}

/** Uploads `bytes` as `name` through the page and checks the panel, the link's counters and the stored file. */
async function uploadOverLink(page: Page, socketToken: string, name: string, bytes: Buffer) {
  const before = await linkCounters();
  await page.getByLabel("Upload files").setInputFiles(makeFile(name, bytes));
  await openTransfers(page);
  await expect(row(page, name)).toContainText("Uploaded", { timeout: 75_000 });
  const after = await linkCounters();
  // The file's bytes crossed the link towards the server, and the link dropped packets on the way.
  expect(after.upBytes - before.upBytes).toBeGreaterThan(bytes.length);
  expect(after.upDropped - before.upDropped).toBeGreaterThan(0);
  const held = await stored(socketToken, `/${name}`);
  expect(held.bytes.length).toBe(bytes.length);
  expect(held.bytes.equals(bytes)).toBe(true);
  expect(held.hash).toBe(await blake3(bytes));
}

test.describe("uploads over a lossy WAN link (100 Mbit/s, 100 ms, 2 % loss)", () => {
  test("a 2 MiB file goes up in one tus stream from the client namespace and is stored intact", async ({ page }) => {
    test.setTimeout(120_000);
    const origins = watchAddresses(page);
    const patches = watchPatches(page);
    const socketToken = await signedInUser(page);
    await uploadOverLink(page, socketToken, "hotel.bin", randomBytes(2 * MIB + 4321));
    expect(patches.length).toBeGreaterThan(0);
    expect(patches.every((patch) => !patch.chunk && patch.url.startsWith(`${FILES}/`))).toBe(true);
    // The page, its assets, its API calls, the socket and the upload: all at the far end of the link.
    expect([...origins].sort()).toEqual(LINK_ORIGINS);
  });

  test("with a 1 MB part size a 3 MiB file goes as parallel chunks over the link and is stored intact", async ({ page }) => {
    test.setTimeout(120_000);
    const admin = await adminToken();
    const protocol = await ok<{ parallelUploads: number; uploadPartMB: number }>("GET", "/api/admin/settings/protocol", { token: admin });
    await ok("PATCH", "/api/admin/settings/protocol", { token: admin, body: { uploadPartMB: 1 } });
    try {
      const origins = watchAddresses(page);
      const patches = watchPatches(page);
      const socketToken = await signedInUser(page);
      await uploadOverLink(page, socketToken, "office.bin", randomBytes(3 * MIB + 999));
      // Four chunks of at most 1 MiB (a chunk cut by a loss-stalled connection is sent again).
      expect(patches.filter((patch) => patch.chunk).length).toBeGreaterThanOrEqual(4);
      expect(patches.every((patch) => patch.url.startsWith(`${FILES}/`))).toBe(true);
      expect([...origins].sort()).toEqual(LINK_ORIGINS);
    } finally {
      await ok("PATCH", "/api/admin/settings/protocol", { token: admin, body: { uploadPartMB: protocol.uploadPartMB } });
    }
  });
});
