import net from "node:net";

export interface RawAnswer {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: string;
  /** Body bytes the socket took before the answer came (what the server read, plus the kernel's buffers). */
  written: number;
}

export interface RawPostOptions {
  /** Body bytes to offer: "a=aaaa…" (URL-encoded), made as it is sent, so even gigabytes cost no memory here. */
  size: number;
  /** Send Transfer-Encoding: chunked (no Content-Length); otherwise Content-Length: size. */
  chunked?: boolean;
  headers?: Record<string, string>;
}

const PIECE = 64 * 1024;

/**
 * A POST written by hand on a plain TCP connection, as a careless or hostile client sends it: the
 * body is written while the answer is awaited, and writing stops as soon as the answer begins (a
 * server that refuses early must not need the rest). A write the server refuses (it closed the
 * connection after answering) is not an error; a connection closed without an answer is.
 */
export function rawPost(url: string, options: RawPostOptions): Promise<RawAnswer> {
  const { size, chunked = false } = options;
  const target = new URL(url);
  const head = [
    `POST ${target.pathname}${target.search} HTTP/1.1`,
    `Host: ${target.host}`,
    "Content-Type: application/x-www-form-urlencoded",
    chunked ? "Transfer-Encoding: chunked" : `Content-Length: ${size}`,
    ...Object.entries(options.headers ?? {}).map(([name, value]) => `${name}: ${value}`),
    "",
    "",
  ].join("\r\n");

  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: target.hostname, port: Number(target.port) });
    let received = Buffer.alloc(0);
    let written = 0;
    let answer: RawAnswer | null = null;
    let bodyStart = -1;
    let settled = false;

    const finish = (error?: Error) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      if (answer) resolve({ ...answer, body: decodeBody(received.subarray(bodyStart), answer.headers) });
      else reject(error ?? new Error(`connection closed without an answer after ${written} body bytes`));
    };
    /** Whether the whole answer is in: by Content-Length, by the last chunk, or (else) when the connection ends. */
    const complete = () => {
      if (!answer) return false;
      const body = received.subarray(bodyStart);
      const length = answer.headers["content-length"];
      if (length !== undefined) return body.length >= Number(length);
      if (/chunked/i.test(answer.headers["transfer-encoding"] ?? "")) return body.includes("\r\n0\r\n\r\n") || body.subarray(0, 5).toString() === "0\r\n\r\n";
      return false;
    };

    socket.on("data", (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (!answer) {
        const end = received.indexOf("\r\n\r\n");
        if (end < 0) return;
        const lines = received.subarray(0, end).toString("latin1").split("\r\n");
        const status = Number(lines[0]?.split(" ")[1]);
        const headers: Record<string, string> = {};
        for (const line of lines.slice(1)) {
          const colon = line.indexOf(":");
          headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
        }
        answer = { status, headers, body: "", written };
        bodyStart = end + 4;
      }
      if (complete()) finish();
    });
    socket.on("end", () => finish());
    socket.on("close", () => finish());
    // EPIPE / ECONNRESET while writing after the server answered and closed: the answer still counts.
    socket.on("error", (error) => finish(error));

    const rest = Buffer.alloc(PIECE, 0x61);
    const first = Buffer.from(rest);
    first[1] = 0x3d; // "a=": one field, whatever the size
    const write = () => {
      while (!answer && !settled && written < size) {
        const length = Math.min(PIECE, size - written);
        const piece = (written === 0 ? first : rest).subarray(0, length);
        written += length;
        let more: boolean;
        if (chunked) {
          socket.write(`${length.toString(16)}\r\n`);
          socket.write(piece);
          more = socket.write("\r\n");
        } else {
          more = socket.write(piece);
        }
        if (!more) return void socket.once("drain", write);
      }
      if (!answer && !settled && chunked) socket.write("0\r\n\r\n");
    };
    socket.once("connect", () => {
      socket.write(head);
      write();
    });
  });
}

function decodeBody(raw: Buffer, headers: Record<string, string>): string {
  if (!/chunked/i.test(headers["transfer-encoding"] ?? "")) return raw.toString("utf8");
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const line = raw.indexOf("\r\n", at);
    if (line < 0) break;
    const length = Number.parseInt(raw.subarray(at, line).toString("latin1"), 16);
    if (!Number.isFinite(length) || length === 0) break;
    parts.push(raw.subarray(line + 2, line + 2 + length));
    at = line + 2 + length + 2;
  }
  return Buffer.concat(parts).toString("utf8");
}
