import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type Server } from "node:https";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codec, startTestEngine, type TestEngine } from "../support/engine";
import { makeLocalhostCert, startTestSmtp, type TestSmtp } from "../support/smtp";

/**
 * Client TLS: certificate authorities uploaded in the console are trusted by Ferry's outgoing TLS at
 * its next connection, without a restart. Shown on the external HTTP sign-in against a real https
 * service whose certificate no system root signed.
 */

const run = promisify(execFile);
let dir: string;
let t: TestEngine;
let admin: string;
let server: Server;
let serviceCert: string;
let base: string;

async function makeCertificate(name: string, days: number): Promise<{ cert: string; key: string }> {
  const [cert, key, csr] = ["crt", "key", "csr"].map((ext) => path.join(dir, `${name}.${ext}`)) as [string, string, string];
  const subject = ["-subj", `/CN=${name}`, "-addext", "subjectAltName=IP:127.0.0.1"];
  if (days < 0) {
    await run("openssl", ["req", "-new", "-newkey", "rsa:2048", "-nodes", ...subject, "-keyout", key, "-out", csr]);
    await run("openssl", ["x509", "-req", "-in", csr, "-signkey", key, "-days", "-1", "-out", cert]);
  } else {
    await run("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", String(days), ...subject, "-keyout", key, "-out", cert]);
  }
  return { cert: await readFile(cert, "utf8"), key: await readFile(key, "utf8") };
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "ferry-client-tls-"));
  const service = await makeCertificate("auth-service", 5);
  serviceCert = service.cert;
  server = createServer({ cert: service.cert, key: service.key }, (req, res) => {
    let text = "";
    req.on("data", (c: Buffer) => (text += c.toString()));
    req.on("end", () => {
      const body = JSON.parse(text || "{}") as { account?: string; password?: string };
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ result: body.account === "erin" && body.password === "Erin#Https-1" }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `https://127.0.0.1:${(server.address() as { port: number }).port}`;
  t = await startTestEngine({ FERRY_AUTH_HTTP_ALLOW_PRIVATE: "1", FERRY_SMTP_ALLOW_PRIVATE: "1" });
  admin = await t.adminToken();
});
afterAll(async () => {
  await t?.stop();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

const upload = (authorities: string) => t.call("PUT", "/api/admin/client-tls", { token: admin, body: { authorities } });

describe("client TLS", () => {
  it("starts with the system's roots only, and says what it covers", async () => {
    const reply = await t.call("GET", "/api/admin/client-tls", { token: admin });
    expect(reply.body.data).toEqual({ authorities: [], covers: ["smtp", "ldap", "http-auth"] });
  });

  it("refuses what is not a certificate (4520) and an expired one (4030), keeping what was there", async () => {
    expect((await upload("not a pem")).body.code).toBe(4520);
    const old = await makeCertificate("old-ca", -1);
    expect((await upload(old.cert)).body.code).toBe(4030);
    expect((await t.call("GET", "/api/admin/client-tls", { token: admin })).body.data.authorities).toEqual([]);
  });

  it("the HTTP sign-in trusts the service once its authority is uploaded, and no longer once it is removed", async () => {
    expect((await t.call("PATCH", "/api/admin/settings/authentication", { token: admin, body: { way: 4, httpAuthUrl: `${base}/check`, httpTimeout: 3 } })).body.code).toBe(200);
    try {
      // Unknown issuer: the TLS handshake fails, so the way's service "does not answer".
      expect((await t.login("erin", "Erin#Https-1")).body.code).toBe(4114);

      // The test clock stands still since the engine started; the certificate was made before it.
      const uploaded = await upload(serviceCert);
      expect(uploaded.body.code).toBe(200);
      expect(uploaded.body.data.authorities).toMatchObject([{ domains: ["127.0.0.1"], state: "valid", selfSigned: true }]);
      expect((await t.login("erin", "Erin#Https-1")).body.code).toBe(200);
      expect((await t.login("erin", "wrong")).body.code).toBe(1005);

      expect((await t.call("DELETE", "/api/admin/client-tls", { token: admin })).body.data.authorities).toEqual([]);
      expect((await t.login("erin", "Erin#Https-1")).body.code).toBe(4114);
    } finally {
      await t.call("PATCH", "/api/admin/settings/authentication", { token: admin, body: { way: 0 } });
    }
  });
});

describe("client TLS for SMTP", () => {
  let smtp: TestSmtp;
  let relay: ReturnType<typeof makeLocalhostCert>;
  beforeAll(async () => {
    relay = makeLocalhostCert();
    smtp = await startTestSmtp({ user: "frank@mail.example.org", password: "Mail#Frank-1", mode: "ssl", tls: relay });
  });
  afterAll(async () => {
    await smtp?.close();
    await rm(relay.dir, { recursive: true, force: true });
  });

  it("the e-mail sign-in over SSL trusts the relay's certificate only once its authority is uploaded", async () => {
    const mail = await t.call("PATCH", "/api/admin/settings/mail", {
      token: admin,
      body: { emailFromName: "Ferry", emailType: 9, emailAccount: "noreply@mail.example.org", emailPassword: codec.encode("Relay#Pass-1"), emailSmtpHost: "localhost", emailSmtpPort: smtp.port, emailEncryptType: 1 },
    });
    expect(mail.body.code).toBe(200);
    expect((await t.call("PATCH", "/api/admin/settings/authentication", { token: admin, body: { way: 2 } })).body.code).toBe(200);
    try {
      expect((await t.login("frank@mail.example.org", "Mail#Frank-1")).body.code).not.toBe(200);
      expect(smtp.auths).toHaveLength(0);
      expect((await upload(relay.cert)).body.code).toBe(200);
      expect((await t.login("frank@mail.example.org", "Mail#Frank-1")).body.code).toBe(200);
      expect(smtp.auths.at(-1)).toMatchObject({ user: "frank@mail.example.org", secure: true });
    } finally {
      await t.call("PATCH", "/api/admin/settings/authentication", { token: admin, body: { way: 0 } });
      await t.call("DELETE", "/api/admin/client-tls", { token: admin });
    }
  });
});
