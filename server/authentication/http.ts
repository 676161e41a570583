import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP } from "node:net";
import { FerryError } from "../errors";
import { checkSmtpHostOnSave, resolveSmtpTarget } from "../mail/address";

/*
 * The external HTTP way (docs/authentication.md, "External HTTP"): Ferry POSTs the account and the
 * password as JSON to the administrator's URL, which answers yes ({"result": true}) or no
 * ({"result": false}, or 401/403). The URL passes the same private-address guard as SMTP targets
 * (server/mail/address.ts): checked at save and at every call, and the connection goes to the
 * address that was checked, so DNS rebinding cannot slip past it.
 */

export const HTTP_WAY_LIMITS = { maxResponseBytes: 16 * 1024 } as const;

/** The address guard speaks of SMTP; for this URL its refusal is 4360. */
function asUrlRefusal(error: unknown): never {
  if (error instanceof FerryError && error.errorName === "InvalidSmtpHost") throw new FerryError("AuthUrlNotAllowed", error.data);
  throw error;
}

/** The check when the administrator saves the URL. */
export async function checkAuthUrlOnSave(url: string, allowPrivate: boolean): Promise<void> {
  await checkSmtpHostOnSave(new URL(url).hostname, allowPrivate).catch(asUrlRefusal);
}

const serviceError = (reason: string) => new FerryError("AuthServiceError", { reason });

/**
 * Asks `url` whether `account` / `password` may sign in: true for yes, false for no, 4114 when the
 * answer is neither (timeout, other status, a body that is not the JSON yes/no, a redirect).
 */
export async function askHttpWay(url: string, account: string, password: string, options: { timeoutMs: number; allowPrivate: boolean; ca?: string[] }): Promise<boolean> {
  const target = new URL(url);
  const host = target.hostname;
  const checked = await resolveSmtpTarget(host, options.allowPrivate).catch(asUrlRefusal);
  const body = JSON.stringify({ account, password });
  const send = target.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise<boolean>((done, fail) => {
    // The whole exchange, connection to last byte, within the timeout.
    const timer = setTimeout(() => {
      req.destroy();
      fail(serviceError("timeout"));
    }, options.timeoutMs);
    const resolve = (yes: boolean) => {
      clearTimeout(timer);
      done(yes);
    };
    const reject = (error: FerryError) => {
      clearTimeout(timer);
      fail(error);
    };
    const req = send(
      target,
      {
        method: "POST",
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), accept: "application/json" },
        // The connection goes to the address the guard checked, whatever DNS says now.
        lookup: (_name, _opts, callback) => (callback as (e: null, address: string, family: number) => void)(null, checked.address, isIP(checked.address)),
        // Client TLS: the uploaded authorities besides the system's roots (ignored for http:).
        ...(options.ca ? { ca: options.ca } : {}),
      },
      (res) => {
        const status = res.statusCode ?? 0;
        if (status === 401 || status === 403) {
          res.resume();
          return resolve(false);
        }
        if (status !== 200) {
          res.resume();
          return reject(serviceError(`status ${status}`));
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > HTTP_WAY_LIMITS.maxResponseBytes) {
            req.destroy();
            return reject(serviceError("response too large"));
          }
          chunks.push(chunk);
        });
        res.on("end", () => {
          try {
            const answer = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { result?: unknown };
            if (answer.result === true || answer.result === false) return resolve(answer.result);
          } catch {
            // not JSON: below
          }
          reject(serviceError("answer is not {\"result\": true|false}"));
        });
        res.on("error", () => reject(serviceError("response")));
      },
    );
    req.on("error", (error: NodeJS.ErrnoException) => reject(serviceError(error.code ?? "request")));
    req.end(body);
  });
}
