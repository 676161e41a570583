import { request as httpRequest } from "node:http";
import WebSocket from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codec, startTestEngine, type TestEngine } from "../support/engine";
import { connectFiles, openSocket } from "../support/file-client";
import { purgeExpired, SIGN_IN_COUNTER_KEEP_MS } from "../../server/limits/purge";

// Account look-up, refresh-token rotation, request size and field lengths (docs/security.md,
// sections 1 to 3), against the real engine over HTTP and WebSocket.

const BODY_LIMIT = 4096;
let t: TestEngine;
beforeAll(async () => {
  t = await startTestEngine({ FERRY_TRUSTED_PROXIES: "127.0.0.1", FERRY_LOOKUP_ADDRESS_MAX: "5", FERRY_API_BODY_LIMIT: String(BODY_LIMIT) });
});
afterAll(() => t?.stop());

const from = (ip: string) => ({ "x-forwarded-for": ip });
const lookup = (email: string, ip: string, lang?: string) =>
  t.call("POST", "/api/user/account/lookup", { body: { action: "get_account", email }, headers: { ...from(ip), ...(lang ? { "accept-language": lang } : {}) } });

describe("account look-up by e-mail", () => {
  it("answers a registered and an unregistered address with the same envelope", async () => {
    await t.createUser("known_mail", { email: "Known.Person@Example.org" });
    for (const [known, unknown] of [
      ["known.person@example.org", "nobody.person@example.org"],
      ["KNOWN.PERSON@EXAMPLE.ORG", "NOBODY.PERSON@EXAMPLE.ORG"],
      ["  known.person@example.org ", "  nobody.person@example.org "],
    ]) {
      const a = await lookup(known!, "10.20.0.1");
      const b = await lookup(unknown!, "10.20.0.2");
      expect(a.status).toBe(b.status);
      // The address comes back as given (trimmed): nothing else differs, not even the account's name.
      expect(a.body).toEqual({ ...b.body, data: { result: 0, account: known!.trim() } });
      expect(b.body.data).toEqual({ result: 0, account: unknown!.trim() });
      expect([...a.headers.keys()].filter((h) => h !== "date" && h !== "content-length")).toEqual([...b.headers.keys()].filter((h) => h !== "date" && h !== "content-length"));
    }
  });

  it("is limited per client address, exactly under parallel requests", async () => {
    const replies = await Promise.all(Array.from({ length: 12 }, (_, i) => lookup(`someone${i}@example.com`, "10.21.0.1", "zh-CN")));
    const codes = replies.map((r) => r.body.code).sort((a, b) => a - b);
    expect(codes).toEqual([...Array(5).fill(200), ...Array(7).fill(4116)]);
    expect(replies.find((r) => r.body.code === 4116)!.body.message).toBe("该 IP 地址已被锁定");
    // Another address is not affected; the window ends and the address may look up again.
    expect((await lookup("someone@example.com", "10.21.0.2")).body.code).toBe(200);
    t.clock.advance(15 * 60_000 + 1);
    expect((await lookup("someone@example.com", "10.21.0.1")).body.code).toBe(200);
  });

  it("refuses over-long and malformed addresses before anything else", async () => {
    for (const email of [`${"a".repeat(250)}@example.com`, "x".repeat(100_000 / 50), "not-an-address", "a@b"]) {
      expect((await lookup(email, "10.22.0.1")).body.code).toBe(400);
    }
  });
});

describe("refresh token rotation", () => {
  async function session(account: string) {
    const user = await t.createUser(account);
    const login = await t.login(account, user.password, from("10.30.0.1"));
    return login.body.data as { token: string; refresh_token: string; websocket_token: string };
  }
  const refresh = (token: string) => t.call("PUT", "/api/user/auth", { token });
  const info = async (token: string) => (await t.call("GET", "/api/user/info", { token })).body.code;

  it("issues a new refresh token at every use; the used one stops working after the grace period", async () => {
    const s = await session("rotating");
    const first = await refresh(s.refresh_token);
    expect(first.body).toMatchObject({ code: 200, data: { expires_in: 3600 } });
    expect(Object.keys(first.body.data).sort()).toEqual(["expires_in", "refresh_token", "token"]);
    expect(first.body.data.refresh_token).not.toBe(s.refresh_token);
    const second = await refresh(first.body.data.refresh_token);
    expect(second.body.code).toBe(200);
    const third = await refresh(second.body.data.refresh_token);
    expect(third.body.code).toBe(200);
    expect(new Set([s.refresh_token, first.body.data.refresh_token, second.body.data.refresh_token, third.body.data.refresh_token]).size).toBe(4);
    expect(await info(third.body.data.token)).toBe(200);
    // The access tokens it replaced are gone.
    for (const replaced of [s.token, first.body.data.token, second.body.data.token]) expect(await info(replaced)).toBe(1009);
  });

  for (const generationsBack of [1, 2, 3]) {
    it(`revokes the whole session when a refresh token ${generationsBack} rotation(s) old is used again`, async () => {
      const s = await session(`reuse_${generationsBack}`);
      const tokens = [s.refresh_token];
      let latest = { token: s.token, refresh_token: s.refresh_token };
      for (let i = 0; i < generationsBack; i++) {
        latest = (await refresh(latest.refresh_token)).body.data;
        tokens.push(latest.refresh_token);
      }
      t.clock.advance(11_000); // past FERRY_REFRESH_REUSE_GRACE (10 s)
      expect((await refresh(tokens[0]!)).body.code).toBe(1009);
      // Every token of the session is now refused: access, the current refresh token, the file server's.
      expect(await info(latest.token)).toBe(1009);
      expect((await refresh(latest.refresh_token)).body.code).toBe(1009);
      const files = await connectFiles(t.fileUrl, null);
      try {
        expect((await files.cmd("login", { token: s.websocket_token })).code).toBe(1009);
      } finally {
        await files.close();
      }
    });
  }

  it("gives two concurrent refreshes with the same token the same new pair, and the session lives on", async () => {
    const s = await session("two_tabs");
    const answers = await Promise.all(Array.from({ length: 4 }, () => refresh(s.refresh_token)));
    expect(answers.map((a) => a.body.code)).toEqual([200, 200, 200, 200]);
    const pairs = new Set(answers.map((a) => `${a.body.data.token} ${a.body.data.refresh_token}`));
    expect(pairs.size).toBe(1);
    const pair = answers[0]!.body.data;
    // Within the grace period the previous token still gets the same pair.
    t.clock.advance(9_000);
    const late = await refresh(s.refresh_token);
    expect(late.body.data).toMatchObject({ token: pair.token, refresh_token: pair.refresh_token });
    expect(await info(pair.token)).toBe(200);
    expect((await refresh(pair.refresh_token)).body.code).toBe(200);
  });

  it("refuses the previous token once the grace period is over, and that ends the session", async () => {
    const s = await session("late_twin");
    const pair = (await refresh(s.refresh_token)).body.data;
    t.clock.advance(10_001);
    expect((await refresh(s.refresh_token)).body.code).toBe(1009);
    expect(await info(pair.token)).toBe(1009);
  });

  it("accepts an empty JSON body on PUT /api/user/auth (some clients send one)", async () => {
    const s = await session("empty_body");
    for (const raw of ["", " ", "\n", "{}"]) {
      const before = await t.call("GET", "/api/user/info", { token: s.token });
      expect(before.body.code).toBe(200);
      const answer = await t.call("PUT", "/api/user/auth", { token: s.refresh_token, raw, headers: { "content-type": "application/json" } });
      expect({ raw, code: answer.body.code }).toEqual({ raw, code: 200 });
      Object.assign(s, { token: answer.body.data.token, refresh_token: answer.body.data.refresh_token });
    }
    // A route with required fields answers the spec's "required" code, not a framework error.
    expect((await t.call("POST", "/api/user/login", { raw: "", headers: { "content-type": "application/json" } })).body.code).toBe(401);
    expect((await t.call("PUT", "/api/user/password/update", { raw: "", headers: { "content-type": "application/json" } })).body.code).toBe(401);
    expect((await t.call("POST", "/api/user/logout", { token: s.token, raw: "", headers: { "content-type": "application/json; charset=utf-8" } })).body.code).toBe(200);
  });
});

/** A raw HTTP request, so the test decides Content-Length and chunking. */
function send(method: string, path: string, options: { headers?: Record<string, string>; chunks?: Buffer[]; lang?: string }) {
  const url = new URL(t.url + path);
  return new Promise<{ status: number; body: any; connection: string | undefined }>((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, method, path: url.pathname, headers: { "accept-language": options.lang ?? "en", ...options.headers } }, (res) => {
      let text = "";
      res.on("data", (c) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode!, body: JSON.parse(text), connection: res.headers.connection }));
    });
    // The server may answer and close before the whole body is written.
    req.on("error", (error: NodeJS.ErrnoException) => (error.code === "EPIPE" || error.code === "ECONNRESET" ? undefined : reject(error)));
    for (const chunk of options.chunks ?? []) req.write(chunk);
    req.end();
  });
}

describe("request bodies", () => {
  const sizes = [BODY_LIMIT + 1, BODY_LIMIT * 4, 5 * 1024 * 1024];
  const targets: Array<[string, string]> = [
    ["POST", "/api/user/login"],
    ["POST", "/api/user/account/lookup"],
    ["PUT", "/api/user/password/update"],
    ["PUT", "/api/user/auth"],
    ["POST", "/api/share/link/verify/url"],
    ["POST", "/api/no/such/route"],
  ];

  it("answers 413 with a translated envelope for a declared length over the limit, on every route", async () => {
    for (const [method, path] of targets) {
      for (const size of sizes) {
        const body = Buffer.alloc(size, 0x61);
        const answer = await send(method, path, { headers: { "content-type": "application/json", "content-length": String(size) }, chunks: [body] });
        expect({ path, size, status: answer.status, code: answer.body.code }).toEqual({ path, size, status: 413, code: 4280 });
        expect(answer.body.message).toBe("The request is too large (at most 4.00 KB)");
      }
    }
    const zh = await send("POST", "/api/user/login", { headers: { "content-type": "application/json", "content-length": String(BODY_LIMIT + 1) }, chunks: [Buffer.alloc(BODY_LIMIT + 1)], lang: "zh-CN" });
    expect(zh.body.message).toBe("请求过大（最多 4.00 KB）");
  });

  it("stops a chunked body without Content-Length as soon as it passes the limit", async () => {
    for (const [method, path] of targets) {
      for (const size of sizes) {
        const chunks = [];
        for (let sent = 0; sent < size; sent += 1024) chunks.push(Buffer.alloc(Math.min(1024, size - sent), 0x20));
        const answer = await send(method, path, { headers: { "content-type": "application/json", "transfer-encoding": "chunked" }, chunks });
        expect({ path, size, status: answer.status, code: answer.body.code }).toEqual({ path, size, status: 413, code: 4280 });
      }
    }
  });

  it("refuses other content types as bad input without reading them, and accepts bodies under the limit", async () => {
    for (const type of ["text/plain", "application/octet-stream", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]) {
      const answer = await send("POST", "/api/user/login", { headers: { "content-type": type, "content-length": String(BODY_LIMIT * 4) }, chunks: [Buffer.alloc(BODY_LIMIT * 4, 0x61)] });
      expect({ type, status: answer.status >= 400 && answer.status < 500, code: [400, 4280].includes(answer.body.code) }).toEqual({ type, status: true, code: true });
    }
    const small = JSON.stringify({ UK: codec.encodeUK("nobody_small", "Wrong#Pass1") });
    expect((await send("POST", "/api/user/login", { headers: { "content-type": "application/json", ...from("10.40.0.1") }, chunks: [Buffer.from(small)] })).body.code).toBe(1005);
  });
});

describe("field lengths", () => {
  it("refuses over-long credentials and account names by schema, before decoding or hashing", async () => {
    // 129 characters decode past the longest password (128); 2,000 are past the schema's encoded length.
    const longPassword = codec.encode("P".repeat(129));
    const cases: Array<[string, string, unknown]> = [
      ["POST", "/api/user/login", { UK: `${codec.encode("someone")}.${"a".repeat(3000)}` }],
      ["POST", "/api/user/login", { UK: codec.encodeUK("x".repeat(2000), "Wrong#Pass1") }],
      ["POST", "/api/user/login", { UK: codec.encodeUK("someone", "P".repeat(129)) }],
      ["POST", "/api/user/login", { UK: codec.encodeUK("someone", "中".repeat(600)) }],
      ["PUT", "/api/user/password/update", { account: "someone", oldPassword: codec.encode("P".repeat(2000)), newPassword: codec.encode("New#Pass2026") }],
      ["PUT", "/api/user/password/update", { account: "someone", oldPassword: longPassword, newPassword: codec.encode("New#Pass2026") }],
      ["PUT", "/api/user/password/update", { account: "someone", oldPassword: codec.encode("Old#Pass2026"), newPassword: longPassword }],
      ["PUT", "/api/user/password/update", { account: "a".repeat(300), oldPassword: codec.encode("Old#Pass2026"), newPassword: codec.encode("New#Pass2026") }],
      ["POST", "/api/user/account/lookup", { action: "get_account", email: `${"b".repeat(300)}@example.com` }],
    ];
    for (const [method, path, body] of cases) {
      const answer = await t.call(method, path, { body, headers: from("10.41.0.1") });
      expect({ path, status: answer.status, code: answer.body.code }).toEqual({ path, status: 400, code: 400 });
    }
    // None of them counted as a wrong password for the address.
    expect((await t.login("nobody_fields", "Wrong#Pass1", from("10.41.0.1"))).body.data.loginFailTimes).toBe(1);
  });
});

describe("the file server's upload creation", () => {
  it("refuses creation headers past Node's header limit, and over-long metadata values by schema", async () => {
    const user = await t.createUser("tus_headers");
    const encode = (value: string) => Buffer.from(value).toString("base64");
    const create = (metadata: string) =>
      fetch(`${t.fileUrl}/uploads/`, {
        method: "POST",
        headers: { authorization: `Bearer ${user.socketToken}`, "tus-resumable": "1.0.0", "upload-length": "10", "upload-metadata": metadata },
      });
    for (const size of [20_000, 64_000]) expect((await create(`groupId ${encode("0")},path ${encode(`/${"a".repeat(size)}`)}`)).status).toBe(431);
    // Within the header limit, a path past 4096 characters is refused by the upload schema (nothing created).
    const long = await create(`groupId ${encode("0")},path ${encode(`/${"b".repeat(5000)}`)}`);
    expect(long.status).toBeGreaterThanOrEqual(400);
    expect(long.status).toBeLessThan(500);
    expect(long.headers.get("location")).toBeNull();
  });
});

describe("the file server's command socket", () => {
  it("closes a socket that sends an oversized frame, and only that socket", async () => {
    const user = await t.createUser("frames");
    const other = await connectFiles(t.fileUrl, user.socketToken);
    try {
      for (const size of [2 * 1024 * 1024 + 1, 4 * 1024 * 1024, 16 * 1024 * 1024]) {
        const big = await openSocket(t.fileUrl);
        const closed = new Promise<number>((resolve) => big.once("close", (code) => resolve(code)));
        big.on("error", () => undefined);
        big.send(JSON.stringify({ id: 1, cmd: "list", args: { groupId: 0, path: "/".padEnd(size, "a") } }));
        expect({ size, code: await closed }).toEqual({ size, code: 1009 });
        expect(big.readyState).toBe(WebSocket.CLOSED);
        const still = await other.cmd("list", { groupId: 0, path: "/" });
        expect(still.code).toBe(200);
      }
    } finally {
      await other.close();
    }
  });
});

describe("sign-in counters of made-up accounts", () => {
  it("do not grow the database: purged once no window can count them, empty ones after a minute", async () => {
    const counters = async () =>
      (await t.engine.services.db.kysely.selectFrom("login_counters").select(["key", "failures"]).where("key", "like", "account:made_up_%").execute()).map((r) => r.key).sort();
    const names = Array.from({ length: 6 }, (_, i) => `made_up_${i}`);
    for (const [i, name] of names.entries()) expect((await t.login(name, "Wrong#Guess2026", from(`10.50.0.${i}`))).body.code).not.toBe(200);
    expect(await counters()).toEqual(names.map((n) => `account:${n}`));

    // Within the window they still count: a purge keeps them.
    await purgeExpired(t.engine.services.db, t.clock);
    expect(await counters()).toHaveLength(names.length);

    t.clock.advance(SIGN_IN_COUNTER_KEEP_MS + 1000);
    await purgeExpired(t.engine.services.db, t.clock);
    expect(await counters()).toEqual([]);

    // An address locked for the window refuses before counting: the account rows it made carry nothing and go after a minute.
    const locked = "10.51.0.1";
    for (let i = 0; i < 25; i++) await t.login(`made_up_spray_${i}`, "Wrong#Guess2026", from(locked));
    const sprayed = (await counters()).length;
    expect(sprayed).toBe(25);
    t.clock.advance(61_000);
    await purgeExpired(t.engine.services.db, t.clock);
    expect((await counters()).length).toBeLessThanOrEqual(20);
  });
});
