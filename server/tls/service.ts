import type { X509Certificate } from "node:crypto";
import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import type { TlsInfo, TlsUploadBody } from "../../contract/tls";
import type { Clock } from "../clock";
import type { Config } from "../config";
import { PRIVATE_FILE_MODE } from "../data-dir";
import { FerryError } from "../errors";
import type { FileServer } from "../fileserver/server";
import { checkServerCertificate, describeCertificate, parseCertificates, toPem } from "./certificates";
import { readIfExists, tlsDir, writeAtomic } from "./files";

interface Served {
  cert: string;
  key: string;
  source: "uploaded" | "environment";
}

/** The part of the file server this service drives (server/fileserver/server.ts). */
export type TlsListeners = Pick<FileServer, "serveCertificate" | "stopTls" | "setPlain" | "plainListening" | "tlsUrl">;

/**
 * The file server's certificate and the "disable non-TLS" switch (docs/file-server.md, "TLS"). An
 * uploaded certificate is kept in `<data dir>/tls` (key 0600, written atomically) and wins over
 * FERRY_TLS_CERT/FERRY_TLS_KEY; every change is applied to the running listeners at once, without
 * a restart. Changes run one at a time.
 */
export function createTls({ config, clock }: { config: Config; clock: Clock }) {
  const dir = tlsDir(config.dataDir);
  const files = { cert: path.join(dir, "server-cert.pem"), key: path.join(dir, "server-key.pem"), switches: path.join(dir, "switches.json") };
  let listeners: TlsListeners | null = null;
  let plainDisabled = false;
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    queue = next.catch(() => undefined);
    return next;
  };

  async function served(): Promise<Served | null> {
    const [cert, key] = await Promise.all([readIfExists(files.cert), readIfExists(files.key)]);
    if (cert && key) return { cert, key, source: "uploaded" };
    if (!config.tls) return null;
    const [envCert, envKey] = await Promise.all([readFile(config.tls.cert, "utf8"), readFile(config.tls.key, "utf8")]);
    return { cert: envCert, key: envKey, source: "environment" };
  }

  async function readSwitches(): Promise<{ plainDisabled: boolean }> {
    const text = await readIfExists(files.switches);
    if (!text) return { plainDisabled: false };
    try {
      return { plainDisabled: (JSON.parse(text) as { plainDisabled?: unknown }).plainDisabled === true };
    } catch {
      return { plainDisabled: false };
    }
  }

  function leafOf(pem: string): { leaf: X509Certificate | null; chainLength: number } {
    try {
      const chain = parseCertificates(pem);
      return { leaf: chain[0]!, chainLength: chain.length };
    } catch {
      return { leaf: null, chainLength: 0 };
    }
  }

  async function info(): Promise<TlsInfo> {
    const current = await served();
    const { leaf, chainLength } = current ? leafOf(current.cert) : { leaf: null, chainLength: 0 };
    const ports = tls.ports();
    return {
      certificate: leaf ? describeCertificate(leaf, clock.now()) : null,
      chainLength,
      source: current?.source ?? null,
      tlsPort: ports.tls,
      plainPort: ports.plain,
      plainDisabled,
    };
  }

  const mustListen = () => {
    if (!listeners) throw new FerryError("ServerError", { reason: "file server not started" });
    return listeners;
  };
  const notePort = (l: TlsListeners) => {
    if (l.tlsUrl) config.fileTlsPort = Number(new URL(l.tlsUrl).port);
  };

  const tls = {
    /** What the file server starts with: the certificate in use and whether the plain port stays closed. */
    async startup(): Promise<{ tls: { cert: string; key: string } | null; plainDisabled: boolean }> {
      plainDisabled = (await readSwitches()).plainDisabled;
      const current = await served();
      return { tls: current && { cert: current.cert, key: current.key }, plainDisabled };
    },
    /** Hands the running file server over; from now on changes reach it. */
    attach(l: TlsListeners) {
      listeners = l;
      notePort(l);
    },
    /** Whether non-TLS connections are disabled (for /api/service/info). */
    plainDisabled: () => plainDisabled,
    /** The file server's ports listening now. */
    ports(): { plain: number | null; tls: number | null } {
      const tlsUrl = listeners?.tlsUrl ?? null;
      return { plain: listeners && !listeners.plainListening ? null : config.filePort, tls: tlsUrl ? Number(new URL(tlsUrl).port) : null };
    },
    info,
    upload: (body: TlsUploadBody) =>
      serial(async () => {
        const l = mustListen();
        const { chain } = checkServerCertificate(body.certificate, body.privateKey, clock.now());
        const cert = toPem(chain);
        await l.serveCertificate({ cert, key: body.privateKey });
        notePort(l);
        await writeAtomic(files.key, body.privateKey, PRIVATE_FILE_MODE);
        await writeAtomic(files.cert, cert, 0o644);
        return info();
      }),
    /** Forgets the uploaded certificate: FERRY_TLS_CERT's is served again, or the TLS port closes. */
    remove: () =>
      serial(async () => {
        const l = mustListen();
        if (plainDisabled) throw new FerryError("TlsCertificateNeeded");
        await Promise.all([rm(files.cert, { force: true }), rm(files.key, { force: true })]);
        const current = await served();
        if (current) await l.serveCertificate(current);
        else await l.stopTls();
        return info();
      }),
    setPlainDisabled: (disabled: boolean) =>
      serial(async () => {
        const l = mustListen();
        if (disabled) {
          const current = await info();
          if (current.certificate?.state !== "valid" || current.tlsPort === null) throw new FerryError("TlsOnlyNeedsCertificate");
        }
        await writeAtomic(files.switches, JSON.stringify({ plainDisabled: disabled }), PRIVATE_FILE_MODE);
        plainDisabled = disabled;
        await l.setPlain(!disabled);
        return info();
      }),
  };
  return tls;
}

export type Tls = ReturnType<typeof createTls>;
