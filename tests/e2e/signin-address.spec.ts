import { request as httpRequest } from "node:http";
import { WEB_URL } from "../support/e2e-env";
import { createUser, uniqueAccount } from "../support/e2e-helpers";
import { expect, signIn, test } from "./fixtures";

// Password spraying through the web: the web reads the visitor's real address from its socket
// (scripts/web-peer.mjs, preloaded into remix-serve) and vouches for it to the engine, which counts
// wrong passwords per address across accounts (FERRY_LOGIN_ADDRESS_MAX_FAILURES, default 20).
// The attacker here posts the no-JavaScript sign-in form from 127.0.0.2, so the browser's own
// address (127.0.0.1) shows that only the attacker's address is locked.

const PASSWORD = "Spray#Ferry2026";
const ADDRESS_LIMIT = 20;

/** POSTs the sign-in form to the real remix-serve from `localAddress`; the page's HTML. */
function postSignIn(localAddress: string, account: string, password: string, headers: Record<string, string> = {}) {
  const body = new URLSearchParams({ account, password }).toString();
  const url = new URL("/signin", WEB_URL);
  return new Promise<{ status: number; html: string }>((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: "POST",
        localAddress,
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          "content-length": String(Buffer.byteLength(body)),
          origin: WEB_URL,
          "accept-language": "en",
          ...headers,
        },
      },
      (res) => {
        let html = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (html += chunk));
        res.on("end", () => resolve({ status: res.statusCode!, html }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

test.describe("sign-in counted per client address through the web", () => {
  test("spraying one password across accounts from one address locks that address only, whatever headers it forges", async ({ page }) => {
    const victim = uniqueAccount("spray_victim");
    await createUser(victim, PASSWORD);
    const outcomes: string[] = [];
    for (let i = 0; i < ADDRESS_LIMIT + 2; i++) {
      // Forged claims the preload and the web must ignore: another peer, another forwarded address.
      const forged = { "x-ferry-peer": `198.51.100.${i + 1}`, "x-forwarded-for": `203.0.113.${i + 1}`, "x-ferry-client-address": `192.0.2.${i + 1}` };
      const { html } = await postSignIn("127.0.0.2", uniqueAccount(`spray${i}`), "Winter#2026x", forged);
      outcomes.push(html.includes("This IP address has been locked") ? "locked" : html.includes("failed attempts 1 of") ? "wrong" : "other");
    }
    expect(outcomes).toEqual([...Array(ADDRESS_LIMIT - 1).fill("wrong"), "locked", "locked", "locked"]);
    // The right password of a real account is refused from that address too.
    const right = await postSignIn("127.0.0.2", victim, PASSWORD);
    expect(right.html).toContain("This IP address has been locked");

    // Another visitor of the same web (the browser, from 127.0.0.1) signs in as usual.
    await signIn(page, victim, PASSWORD);
    await expect(page).toHaveURL(/\/personal$/);
  });
});
