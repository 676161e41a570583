import { execFileSync } from "node:child_process";
import { lookup } from "node:dns/promises";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type ParsedMail, simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

/** A message the test SMTP server accepted, parsed as a mail client would. */
export interface Received {
  envelopeFrom: string;
  envelopeTo: string[];
  /** The account the client authenticated as. */
  user: string;
  /** Whether the connection was encrypted (SSL or after STARTTLS). */
  secure: boolean;
  mail: ParsedMail;
}

export interface TestSmtp {
  host: string;
  port: number;
  received: Received[];
  /** Authentication attempts, with the password the client sent. */
  auths: { user: string; password: string; secure: boolean }[];
  /** Resolves when `count` messages have arrived (or rejects after the timeout). */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

/** A self-signed certificate for "localhost" (openssl), for the SSL and STARTTLS servers and FERRY_SMTP_CA. */
export function makeLocalhostCert(): { dir: string; certFile: string; keyFile: string; cert: string; key: string } {
  const dir = mkdtempSync(path.join(tmpdir(), "ferry-smtp-cert-"));
  const certFile = path.join(dir, "cert.pem");
  const keyFile = path.join(dir, "key.pem");
  execFileSync(
    "openssl",
    ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", keyFile, "-out", certFile, "-days", "2", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"],
    { stdio: "ignore" },
  );
  return { dir, certFile, keyFile, cert: readFileSync(certFile, "utf8"), key: readFileSync(keyFile, "utf8") };
}

/**
 * A real SMTP server (smtp-server) on a free port of the address "localhost" resolves to first.
 * It accepts only `user`/`password` (AUTH PLAIN or LOGIN), and keeps what it receives.
 */
export async function startTestSmtp(options: {
  user: string;
  password: string;
  mode: "none" | "ssl" | "starttls";
  tls?: { cert: string; key: string };
}): Promise<TestSmtp> {
  const host = (await lookup("localhost")).address;
  const received: Received[] = [];
  const auths: TestSmtp["auths"] = [];
  const waiters: { count: number; resolve: (r: Received[]) => void }[] = [];
  const notify = () => {
    for (const w of [...waiters]) {
      if (received.length >= w.count) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(received.slice());
      }
    }
  };
  const server = new SMTPServer({
    secure: options.mode === "ssl",
    ...(options.tls ? { cert: options.tls.cert, key: options.tls.key } : {}),
    disabledCommands: options.mode === "none" ? ["STARTTLS"] : [],
    allowInsecureAuth: options.mode === "none",
    authMethods: ["PLAIN", "LOGIN"],
    logger: false,
    onAuth(auth, session, callback) {
      auths.push({ user: auth.username ?? "", password: auth.password ?? "", secure: session.secure });
      if (auth.username === options.user && auth.password === options.password) return callback(null, { user: auth.username });
      return callback(new Error("Invalid username or password"));
    },
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((mail) => {
          received.push({
            envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
            envelopeTo: session.envelope.rcptTo.map((r) => r.address),
            user: String(session.user ?? ""),
            secure: session.secure,
            mail,
          });
          callback();
          notify();
        })
        .catch((error: Error) => callback(error));
    },
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, host, () => resolve((server.server.address() as { port: number }).port));
  });
  return {
    host,
    port,
    received,
    auths,
    waitFor(count, timeoutMs = 20_000) {
      if (received.length >= count) return Promise.resolve(received.slice());
      return new Promise((resolve, reject) => {
        const waiter = { count, resolve };
        waiters.push(waiter);
        setTimeout(() => {
          const i = waiters.indexOf(waiter);
          if (i >= 0) {
            waiters.splice(i, 1);
            reject(new Error(`expected ${count} messages, got ${received.length}`));
          }
        }, timeoutMs).unref();
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
