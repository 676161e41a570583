import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { Permission } from "../../contract/permissions";
import { ACCOUNT_TYPES } from "../../contract/users";
import { ADMIN_PASSWORD, codec, startTestEngine, type TestEngine } from "../support/engine";
import { startTestSmtp, type TestSmtp } from "../support/smtp";

/*
 * The e-mail (SMTP AUTH against the smtp-server package), external HTTP (a real local node http
 * server) and system (the host's PAM, with a throw-away host account) ways: allowed and refused,
 * who else may sign in, default permissions, and the private-address guard of the HTTP URL.
 */

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const settingsUrl = "/api/admin/settings/authentication";
const MAIL_USER = "carol.smith@mail.example.org";
const MAIL_PASS = "Mail#Carol-42";

let t: TestEngine;
let admin: string;

beforeAll(async () => {
  // The test's SMTP and HTTP servers are on loopback, so this engine allows private targets for both.
  t = await startTestEngine({ FERRY_SMTP_ALLOW_PRIVATE: "1", FERRY_AUTH_HTTP_ALLOW_PRIVATE: "1" });
  admin = await t.adminToken();
  await t.createUser("handmade", { password: "Manual#Pass-1" });
});
afterAll(async () => {
  await t?.stop();
});

const setWay = (body: Record<string, unknown>) => t.call("PATCH", settingsUrl, { token: admin, body });

describe("e-mail: SMTP AUTH on the server's mail server", () => {
  let smtp: TestSmtp;
  beforeAll(async () => {
    smtp = await startTestSmtp({ user: MAIL_USER, password: MAIL_PASS, mode: "none" });
  });
  afterAll(async () => {
    await setWay({ way: 0 });
    await smtp?.close();
  });

  it("is refused with 4135 while the server has no mail account", async () => {
    expect((await setWay({ way: 2 })).body.code).toBe(4135);
  });

  it("an address the mail server takes signs in and becomes an Email account; a wrong password is 1005", async () => {
    const mail = await t.call("PATCH", "/api/admin/settings/mail", {
      token: admin,
      body: { emailFromName: "Ferry", emailType: 9, emailAccount: "noreply@mail.example.org", emailPassword: codec.encode("Relay#Pass-1"), emailSmtpHost: smtp.host, emailSmtpPort: smtp.port, emailEncryptType: 0 },
    });
    expect(mail.body.code).toBe(200);
    expect((await setWay({ way: 2 })).body.code).toBe(200);

    const wrong = await t.login(MAIL_USER, "Mail#Carol-43");
    expect(wrong.body.code).toBe(1005);
    expect(smtp.auths.at(-1)).toMatchObject({ user: MAIL_USER, password: "Mail#Carol-43" });

    const reply = await t.login(MAIL_USER, MAIL_PASS);
    expect(reply.body.code).toBe(200);
    expect(reply.body.data).toMatchObject({ account: "carol_smith", accountType: ACCOUNT_TYPES.Email });
    const listed = await t.call("GET", "/api/admin/users?search=carol", { token: admin });
    expect(listed.body.data.list).toHaveLength(1);
    expect(listed.body.data.list[0]).toMatchObject({ account: "carol_smith", email: MAIL_USER, accountType: ACCOUNT_TYPES.Email });
    // Again, by address or by the account name: the same account, checked by the mail server each time.
    const before = smtp.auths.length;
    expect((await t.login("carol_smith", MAIL_PASS)).body.data.userId).toBe(reply.body.data.userId);
    expect((await t.login(MAIL_USER, MAIL_PASS)).body.data.userId).toBe(reply.body.data.userId);
    expect(smtp.auths.length).toBe(before + 2);
  });

  it("a name without @ that is no account is not sent to the mail server", async () => {
    const before = smtp.auths.length;
    expect((await t.login("someone", MAIL_PASS)).body.code).toBe(1005);
    expect(smtp.auths.length).toBe(before);
  });

  it("manually created accounts and the administrator keep their own passwords", async () => {
    expect((await t.login("handmade", "Manual#Pass-1")).body.code).toBe(200);
    expect((await t.login("admin", ADMIN_PASSWORD)).body.code).toBe(200);
  });

  it("the Email account was created with the default permission, and stays a list entry the administrator edits", async () => {
    const { defaultPermission } = (await t.call("GET", settingsUrl, { token: admin })).body.data;
    const listed = (await t.call("GET", "/api/admin/users?search=carol_smith", { token: admin })).body.data.list[0];
    expect(listed.permission & ~(Permission.CWD | Permission.Append)).toBe(defaultPermission & ~(Permission.CWD | Permission.Append));
  });

  it("a mail server that cannot be reached is 4139, and the attempt is given back", async () => {
    const unreachable = await t.call("PATCH", "/api/admin/settings/mail", { token: admin, body: { emailSmtpPort: 9 } });
    expect(unreachable.body.code).toBe(200);
    // Six would lock the account (lockTimes 5) had they counted as wrong passwords.
    for (let i = 0; i < 6; i++) expect((await t.login(MAIL_USER, MAIL_PASS)).body.code).toBe(4139);
    await t.call("PATCH", "/api/admin/settings/mail", { token: admin, body: { emailSmtpPort: smtp.port } });
    expect((await t.login(MAIL_USER, MAIL_PASS)).body.code).toBe(200);
  });

  it("back to local only: the Email account no longer signs in, the manually created one does", async () => {
    expect((await setWay({ way: 0 })).body.code).toBe(200);
    expect((await t.login(MAIL_USER, MAIL_PASS)).body.code).toBe(1005);
    expect((await t.login("carol_smith", MAIL_PASS)).body.code).toBe(1005);
    expect((await t.login("handmade", "Manual#Pass-1")).body.code).toBe(200);
  });
});

describe("external HTTP", () => {
  let server: Server;
  let base: string;
  const asked: { path: string; body: { account?: string; password?: string } }[] = [];
  /** The HTTP service's own accounts. */
  const known: Record<string, string> = { dave: "Dave#Http-1", handmade: "Manual#Http-9", carol_smith: MAIL_PASS };

  beforeAll(async () => {
    server = createServer((req, res) => {
      let text = "";
      req.on("data", (c: Buffer) => (text += c.toString()));
      req.on("end", () => {
        const body = JSON.parse(text || "{}") as { account?: string; password?: string };
        asked.push({ path: req.url ?? "", body });
        if (req.url === "/slow") return; // never answers
        if (req.url === "/broken") return res.writeHead(500).end("oops");
        if (req.url === "/page") return res.writeHead(200, { "content-type": "text/html" }).end("<html>welcome</html>");
        if (req.url === "/forbidden") return res.writeHead(403).end();
        if (req.url === "/unauthorized") return res.writeHead(401).end();
        if (req.url === "/moved") return res.writeHead(302, { location: "/check" }).end();
        if (req.url === "/big") return res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ result: true, pad: "x".repeat(20_000) }));
        const yes = body.account !== undefined && known[body.account] === body.password;
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ result: yes }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    server.unref();
  });
  afterAll(async () => {
    await setWay({ way: 0 });
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("is refused without a URL", async () => {
    expect((await setWay({ way: 4, httpAuthUrl: "" })).body.code).toBe(400);
  });

  it("the service's yes signs in an unlisted account with the default permission; its no is 1005", async () => {
    expect((await setWay({ way: 4, httpAuthUrl: `${base}/check`, httpTimeout: 2, defaultPermission: Permission.List | Permission.Download })).body.code).toBe(200);
    expect((await t.login("dave", "Dave#Http-2")).body.code).toBe(1005);
    expect(asked.at(-1)).toEqual({ path: "/check", body: { account: "dave", password: "Dave#Http-2" } });

    const reply = await t.login("dave", known.dave!);
    expect(reply.body.code).toBe(200);
    const token = reply.body.data.token as string;
    const info = await t.call("GET", "/api/user/info", { token });
    expect(info.body.data.user.permission & ~(Permission.CWD | Permission.Append)).toBe(Permission.List | Permission.Download);
    // No entry in the users list.
    expect((await t.call("GET", "/api/admin/users?search=dave", { token: admin })).body.data.total).toBe(0);

    // The default permissions tab applies to these accounts at once.
    const changed = await setWay({ defaultPermission: Permission.List | Permission.Download | Permission.Upload });
    expect(changed.body.data.defaultPermission).toBe(Permission.List | Permission.Download | Permission.Upload);
    const after = await t.call("GET", "/api/user/info", { token });
    expect(after.body.data.user.permission & Permission.Upload).toBe(Permission.Upload);
  });

  it("manually created accounts cannot sign in: 1005 on their own password, 1018 when the service says yes to the name", async () => {
    expect((await t.login("handmade", "Manual#Pass-1")).body.code).toBe(1005);
    expect((await t.login("handmade", known.handmade!)).body.code).toBe(1018);
    expect((await t.login("admin", ADMIN_PASSWORD)).body.code).toBe(200);
  });

  it("a service that does not answer yes or no in time is 4114, and the attempt is given back", async () => {
    await setWay({ httpAuthUrl: `${base}/slow`, httpTimeout: 1 });
    expect((await t.login("dave", known.dave!)).body.code).toBe(4114);
    await setWay({ httpAuthUrl: `${base}/broken` });
    // Six would lock the account (lockTimes 5) had they counted as wrong passwords.
    for (let i = 0; i < 6; i++) expect((await t.login("dave", known.dave!)).body.code).toBe(4114);
    await setWay({ httpAuthUrl: `${base}/page` });
    expect((await t.login("dave", known.dave!)).body.code).toBe(4114);
    await setWay({ httpAuthUrl: `${base}/moved` });
    expect((await t.login("dave", known.dave!)).body.code).toBe(4114);
    await setWay({ httpAuthUrl: `${base}/big` });
    expect((await t.login("dave", known.dave!)).body.code).toBe(4114);
    await setWay({ httpAuthUrl: `${base}/forbidden` });
    expect((await t.login("dave", known.dave!)).body.code).toBe(1005);
    await setWay({ httpAuthUrl: `${base}/unauthorized` });
    expect((await t.login("dave", known.dave!)).body.code).toBe(1005);
    await setWay({ httpAuthUrl: `${base}/check` });
    expect((await t.login("dave", known.dave!)).body.code).toBe(200);
  });

  it("the service's no counts towards the account's lockout like a local wrong password", async () => {
    const first = await t.login("dave", "Dave#Http-3");
    const second = await t.login("dave", "Dave#Http-4");
    expect([first.body.code, second.body.code]).toEqual([1005, 1005]);
    expect(second.body.data.loginFailTimes).toBe(first.body.data.loginFailTimes + 1);
    expect((await t.login("dave", known.dave!)).body.code).toBe(200);
  });

  it("an account another way created does not sign in under HTTP, even when the service says yes", async () => {
    // carol_smith is the e-mail way's account (the describe above).
    const before = asked.length;
    expect((await t.login("carol_smith", MAIL_PASS)).body.code).toBe(1005);
    expect(asked.length).toBe(before);
  });

  it("back to local only: the HTTP account no longer signs in, the manually created one does", async () => {
    expect((await setWay({ way: 0 })).body.code).toBe(200);
    expect((await t.login("dave", known.dave!)).body.code).toBe(1005);
    expect((await t.login("handmade", "Manual#Pass-1")).body.code).toBe(200);
  });
});

describe("the HTTP URL's private-address guard (FERRY_AUTH_HTTP_ALLOW_PRIVATE unset)", () => {
  let guarded: TestEngine;
  beforeAll(async () => {
    guarded = await startTestEngine();
  });
  afterAll(async () => {
    await guarded?.stop();
  });

  it("refuses loopback, private, link-local and local names with 4360, and changes nothing", async () => {
    const token = await guarded.adminToken();
    for (const url of ["http://127.0.0.1:9/check", "http://localhost/check", "http://169.254.169.254/latest", "http://10.1.2.3/auth", "https://[::1]/x", "http://auth.internal/x"]) {
      const reply = await guarded.call("PATCH", settingsUrl, { token, body: { way: 4, httpAuthUrl: url } });
      expect(reply.body.code, url).toBe(4360);
    }
    expect((await guarded.call("PATCH", settingsUrl, { token, body: { httpAuthUrl: "ftp://example.org/x" } })).body.code).toBe(400);
    const stored = await guarded.call("GET", settingsUrl, { token });
    expect(stored.body.data).toMatchObject({ way: 0, httpAuthUrl: "" });
  });
});

describe("system: the host's accounts through PAM", () => {
  const host = `ferry${randomBytes(3).toString("hex")}`;
  const hostPassword = "Host#Pass-2026";
  const service = `ferry-test-${randomBytes(3).toString("hex")}`;
  const pamFile = `/etc/pam.d/${service}`;
  let pamEngine: TestEngine;
  let token: string;

  beforeAll(async () => {
    // A throw-away host account and PAM service (this runs as root, as CI does); removed afterwards.
    execFileSync("useradd", ["--no-create-home", "--shell", "/usr/sbin/nologin", host]);
    execFileSync("chpasswd", { input: `${host}:${hostPassword}\n` });
    writeFileSync(pamFile, "auth required pam_unix.so\naccount required pam_unix.so\n");
    pamEngine = await startTestEngine({ FERRY_PAM_SERVICE: service });
    token = await pamEngine.adminToken();
    await pamEngine.createUser("handmade", { password: "Manual#Pass-1" });
  });
  afterAll(async () => {
    await pamEngine?.stop();
    try {
      execFileSync("userdel", [host]);
    } catch {
      // not created
    }
    if (existsSync(pamFile)) rmSync(pamFile);
  });

  it("a host account signs in with its host password as an unlisted Linux account", async () => {
    expect((await pamEngine.call("PATCH", settingsUrl, { token, body: { way: 3 } })).body.code).toBe(200);
    expect((await pamEngine.login(host, "Host#Pass-2027")).body.code).toBe(1005);
    const reply = await pamEngine.login(host, hostPassword);
    expect(reply.body.code).toBe(200);
    expect(reply.body.data.accountType).toBe(ACCOUNT_TYPES.Linux);
    expect((await pamEngine.call("GET", `/api/admin/users?search=${host}`, { token })).body.data.total).toBe(0);
    // The default permissions tab's mask.
    const { defaultPermission } = (await pamEngine.call("GET", settingsUrl, { token })).body.data;
    const info = await pamEngine.call("GET", "/api/user/info", { token: reply.body.data.token });
    expect(info.body.data.user.permission & ~(Permission.CWD | Permission.Append)).toBe(defaultPermission & ~(Permission.CWD | Permission.Append));
  });

  it("a host account whose expiry date has passed (chage -E) is refused with 1050, as PAM's account check would; a locked one (passwd -l) is 1005", async () => {
    // The addon runs pam_authenticate only, which does not look at expiry: Ferry reads the shadow entry itself.
    execFileSync("chage", ["-E", "0", host]);
    try {
      expect((await pamEngine.login(host, hostPassword)).body.code).toBe(1050);
    } finally {
      execFileSync("chage", ["-E", "-1", host]);
    }
    // Password aged past its inactive days: the account is disabled as well.
    execFileSync("chage", ["-d", "2020-01-01", "-M", "30", "-I", "1", host]);
    try {
      expect((await pamEngine.login(host, hostPassword)).body.code).toBe(1050);
    } finally {
      execFileSync("chage", ["-d", new Date().toISOString().slice(0, 10), "-M", "99999", "-I", "-1", host]);
    }
    execFileSync("passwd", ["-l", host], { stdio: "ignore" });
    try {
      expect((await pamEngine.login(host, hostPassword)).body.code).toBe(1005);
    } finally {
      execFileSync("passwd", ["-u", host], { stdio: "ignore" });
    }
    expect((await pamEngine.login(host, hostPassword)).body.code).toBe(200);
  });

  it("root and other system accounts are refused with 4123; unknown names with 1005", async () => {
    expect((await pamEngine.login("root", "whatever-it-is")).body.code).toBe(4123);
    expect((await pamEngine.login("daemon", "whatever-it-is")).body.code).toBe(4123);
    expect((await pamEngine.login("nosuchhostuser", hostPassword)).body.code).toBe(1005);
  });

  it("manually created accounts cannot sign in; the administrator can", async () => {
    expect((await pamEngine.login("handmade", "Manual#Pass-1")).body.code).toBe(1005);
    expect((await pamEngine.login("admin", ADMIN_PASSWORD)).body.code).toBe(200);
  });
});
