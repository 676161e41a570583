import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "./ports";

/*
 * A real OpenLDAP server for the LDAP/AD tests: Debian's slapd (`apt-get install slapd ldap-utils`,
 * .ci/run installs them), started on a free loopback port with a throw-away configuration and
 * database in a temporary folder, loaded from an LDIF of a few people, and stopped by the test.
 */

export const SLAPD_BIN = "/usr/sbin/slapd";
export const SLAPADD_BIN = "/usr/sbin/slapadd";

export interface DirectoryPerson {
  uid: string;
  cn: string;
  mail?: string;
  password: string;
}

export interface TestSlapd {
  url: string;
  port: number;
  base: string;
  /** The service account that binds to search (the admin screen's test account), as a DN. */
  readerDn: string;
  readerPassword: string;
  stop(): Promise<void>;
}

const waitForPort = async (port: number, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`slapd did not listen on ${port} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

/** Starts slapd with `people` under ou=people,<base> and a reader account cn=reader,<base>. */
export async function startTestSlapd(people: DirectoryPerson[], options: { readerPassword?: string } = {}): Promise<TestSlapd> {
  if (!existsSync(SLAPD_BIN)) throw new Error(`${SLAPD_BIN} is missing: apt-get install -y slapd ldap-utils (.ci/run does)`);
  const dir = mkdtempSync(path.join(tmpdir(), "ferry-slapd-"));
  const dbDir = path.join(dir, "db");
  mkdirSync(dbDir);
  const base = "dc=ferry,dc=test";
  const readerDn = `cn=reader,${base}`;
  const readerPassword = options.readerPassword ?? "Reader#Pass-7";
  const conf = path.join(dir, "slapd.conf");
  writeFileSync(
    conf,
    [
      "include /etc/ldap/schema/core.schema",
      "include /etc/ldap/schema/cosine.schema",
      "include /etc/ldap/schema/nis.schema",
      "include /etc/ldap/schema/inetorgperson.schema",
      `pidfile ${path.join(dir, "slapd.pid")}`,
      "modulepath /usr/lib/ldap",
      "moduleload back_mdb",
      "database mdb",
      "maxsize 10485760",
      `suffix "${base}"`,
      `rootdn "cn=admin,${base}"`,
      `directory ${dbDir}`,
      // Passwords are only for binding; reading the directory needs a bind (no anonymous search).
      "access to attrs=userPassword by anonymous auth by self read by * none",
      "access to * by users read by anonymous auth",
      "",
    ].join("\n"),
  );
  const entries = [
    `dn: ${base}\nobjectClass: dcObject\nobjectClass: organization\ndc: ferry\no: Ferry Test`,
    `dn: ou=people,${base}\nobjectClass: organizationalUnit\nou: people`,
    `dn: ${readerDn}\nobjectClass: organizationalRole\nobjectClass: simpleSecurityObject\ncn: reader\nuserPassword: ${readerPassword}`,
    ...people.map((p) =>
      [
        `dn: uid=${p.uid},ou=people,${base}`,
        "objectClass: inetOrgPerson",
        `uid: ${p.uid}`,
        `cn: ${p.cn}`,
        `sn: ${p.cn.split(" ").pop()}`,
        ...(p.mail ? [`mail: ${p.mail}`] : []),
        `userPassword: ${p.password}`,
      ].join("\n"),
    ),
  ];
  const ldif = path.join(dir, "people.ldif");
  writeFileSync(ldif, `${entries.join("\n\n")}\n`);
  execFileSync(SLAPADD_BIN, ["-f", conf, "-l", ldif], { stdio: "pipe" });

  const port = await freePort();
  // -d 0: stay in the foreground (so the test owns the process) without debug output.
  const child: ChildProcess = spawn(SLAPD_BIN, ["-f", conf, "-h", `ldap://127.0.0.1:${port}/`, "-d", "0"], { stdio: "ignore" });
  let exited = false;
  child.once("exit", () => (exited = true));
  try {
    await waitForPort(port, 15_000);
  } catch (error) {
    child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url: `ldap://127.0.0.1:${port}`,
    port,
    base,
    readerDn,
    readerPassword,
    async stop() {
      if (!exited) {
        const gone = new Promise<void>((resolve) => child.once("exit", () => resolve()));
        child.kill("SIGTERM");
        await Promise.race([gone, new Promise((r) => setTimeout(r, 5_000))]);
        if (!exited) child.kill("SIGKILL");
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
