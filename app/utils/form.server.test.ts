// @vitest-environment node
// Node's own Request, streams and FormData, as remix-serve has them (happy-dom's differ).
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { discardBody, LINGER_BYTES, LINGER_MS, readForm, refusePost, type TooLargeData } from "./form.server";

const URL_ = "http://web.test/signin";
const LIMIT = 4096;

/** A body that counts what the reader pulled from it: `chunks` pieces of `size` bytes ("a"), or endless. */
function countingBody(size: number, chunks = Infinity) {
  const pulled = { bytes: 0, cancelled: false };
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (sent >= chunks) return controller.close();
        sent += 1;
        pulled.bytes += size;
        controller.enqueue(new Uint8Array(size).fill(0x61));
      },
      cancel() {
        pulled.cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, pulled };
}

function post(body: BodyInit | null, headers: Record<string, string> = {}) {
  return new Request(URL_, { method: "POST", body, headers: { "Content-Type": "application/x-www-form-urlencoded", ...headers }, duplex: "half" } as RequestInit);
}

/** Lets the background discard (promises and I/O callbacks) run its course. */
async function settle() {
  for (let i = 0; i < 300; i++) await new Promise((resolve) => setImmediate(resolve));
}

async function refusal(promise: Promise<unknown>): Promise<Response> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Response);
  return error as Response;
}

describe("readForm", () => {
  it("reads a URL-encoded form under the cap", async () => {
    const form = await readForm(post("account=admin&password=p%C3%A4ss&redirectTo=%2Fpersonal"), { limit: LIMIT });
    expect(Object.fromEntries(form)).toEqual({ account: "admin", password: "päss", redirectTo: "/personal" });
  });

  it("reads a body of exactly the cap, by Content-Length and streamed", async () => {
    const text = `a=${"x".repeat(LIMIT - 2)}`;
    expect(new TextEncoder().encode(text).byteLength).toBe(LIMIT);
    expect((await readForm(post(text, { "Content-Length": String(LIMIT) }), { limit: LIMIT })).get("a")).toHaveLength(LIMIT - 2);
    const { stream } = countingBody(LIMIT / 4, 4);
    // "aaaa…" is one field named by the whole body, with an empty value.
    expect([...(await readForm(post(stream), { limit: LIMIT })).keys()]).toEqual(["a".repeat(LIMIT)]);
  });

  it("refuses one byte over the cap, by Content-Length and streamed", async () => {
    const text = `a=${"x".repeat(LIMIT - 1)}`;
    expect((await refusal(readForm(post(text, { "Content-Length": String(LIMIT + 1) }), { limit: LIMIT }))).status).toBe(413);
    expect((await refusal(readForm(post(text), { limit: LIMIT }))).status).toBe(413);
  });

  it("refuses by Content-Length at once, before the body is read for the form", async () => {
    for (const declared of [LIMIT + 1, 10 * LIMIT, 100 * 1024 * 1024, 2 ** 53]) {
      const { stream, pulled } = countingBody(1024);
      const answer = await refusal(readForm(post(stream, { "Content-Length": String(declared) }), { limit: LIMIT }));
      expect({ declared, status: answer.status }).toEqual({ declared, status: 413 });
      await settle();
      // Of an endless body, no more than what discardBody throws away (see below).
      expect({ declared, bounded: pulled.bytes <= LINGER_BYTES + 1024 }).toEqual({ declared, bounded: true });
    }
  });

  it("refuses a streamed body (no Content-Length) once it passes the cap, and reads a bounded amount of it", async () => {
    for (const chunk of [1, 1000, 4096, 65536]) {
      const { stream, pulled } = countingBody(chunk);
      const request = post(stream);
      expect(request.headers.get("Content-Length")).toBeNull();
      const answer = await refusal(readForm(request, { limit: LIMIT }));
      expect(answer.status).toBe(413);
      await settle();
      expect({ chunk, bounded: pulled.bytes <= LIMIT + LINGER_BYTES + 2 * chunk }).toEqual({ chunk, bounded: true });
    }
  });

  it("discards a refused body: at most LINGER_BYTES more are read, and it is closed after LINGER_MS", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      const { stream, pulled } = countingBody(16 * 1024);
      expect((await refusal(readForm(post(stream), { limit: LIMIT }))).status).toBe(413);
      await settle();
      expect(pulled.bytes).toBeGreaterThan(LINGER_BYTES);
      expect(pulled.bytes).toBeLessThanOrEqual(LIMIT + LINGER_BYTES + 2 * 16 * 1024);
      const stalled = pulled.bytes;
      await settle();
      expect({ pulled: pulled.bytes, cancelled: pulled.cancelled }).toEqual({ pulled: stalled, cancelled: false });
      vi.advanceTimersByTime(LINGER_MS);
      await settle();
      expect(pulled.cancelled).toBe(true);

      // A short body is read to its end and not cancelled: the connection stays usable.
      const short = countingBody(1024, 100);
      discardBody(post(short.stream));
      await settle();
      vi.advanceTimersByTime(LINGER_MS);
      await settle();
      expect({ pulled: short.pulled.bytes, cancelled: short.pulled.cancelled }).toEqual({ pulled: 100 * 1024, cancelled: false });
    } finally {
      vi.useRealTimers();
    }
  });

  it("refusePost answers 405 to a route that takes no posts, discarding the body", async () => {
    const { stream, pulled } = countingBody(1024, 10);
    const answer = refusePost({ request: post(stream) });
    expect({ status: answer.status, allow: answer.headers.get("Allow") }).toEqual({ status: 405, allow: "GET, HEAD" });
    await settle();
    expect(pulled.bytes).toBe(10 * 1024);
  });

  it("answers 413 with the limit and a translated message", async () => {
    const en = await refusal(readForm(post("x".repeat(LIMIT + 1)), { limit: LIMIT }));
    expect(en.headers.get("Cache-Control")).toBe("no-store");
    const enBody = (await en.json()) as TooLargeData;
    expect(enBody).toEqual({ code: 4280, limit: LIMIT, message: "The request is too large (at most 4.00 KB)" });
    const zh = await refusal(readForm(post("x".repeat(LIMIT + 1), { "Accept-Language": "zh-CN,zh;q=0.9" }), { limit: LIMIT }));
    expect(((await zh.json()) as TooLargeData).message).toBe("请求过大（最多 4.00 KB）");
  });

  it("reads multipart forms, and refuses them over the cap", async () => {
    const small = new FormData();
    small.set("intent", "login");
    small.set("password", "123456");
    small.set("note", new Blob(["hello"], { type: "text/plain" }), "note.txt");
    const multipart = new Request(URL_, { method: "POST", body: small });
    expect(multipart.headers.get("Content-Type")).toMatch(/^multipart\/form-data; boundary=/);
    const form = await readForm(multipart, { limit: LIMIT });
    expect(form.get("intent")).toBe("login");
    expect(form.get("password")).toBe("123456");
    expect(await (form.get("note") as File).text()).toBe("hello");

    const big = new FormData();
    big.set("password", "x".repeat(LIMIT));
    expect((await refusal(readForm(new Request(URL_, { method: "POST", body: big }), { limit: LIMIT }))).status).toBe(413);
    const file = new FormData();
    file.set("upload", new Blob([new Uint8Array(LIMIT * 3)]), "big.bin");
    expect((await refusal(readForm(new Request(URL_, { method: "POST", body: file }), { limit: LIMIT }))).status).toBe(413);
  });

  it("refuses a cross-site post before reading its form", async () => {
    const refused: Record<string, string>[] = [{ "Sec-Fetch-Site": "cross-site" }, { "Sec-Fetch-Site": "same-site" }, { Origin: "https://evil.example", Host: "web.test" }, { Origin: "null" }];
    for (const headers of refused) {
      const { stream, pulled } = countingBody(1024);
      const answer = await refusal(readForm(post(stream, headers), { limit: LIMIT }));
      expect({ headers, status: answer.status }).toEqual({ headers, status: 403 });
      await settle();
      expect(pulled.bytes).toBeLessThanOrEqual(LINGER_BYTES + 1024);
    }
  });

  it("takes an empty body as an empty form, and refuses other encodings and malformed multipart", async () => {
    expect([...(await readForm(new Request(URL_, { method: "POST" }), { limit: LIMIT })).keys()]).toEqual([]);
    expect([...(await readForm(post(""), { limit: LIMIT })).keys()]).toEqual([]);
    expect((await refusal(readForm(post('{"a":1}', { "Content-Type": "application/json" }), { limit: LIMIT }))).status).toBe(415);
    expect((await refusal(readForm(post("a=1", { "Content-Type": "text/plain" }), { limit: LIMIT }))).status).toBe(415);
    expect((await refusal(readForm(post("--x\r\nnot a part", { "Content-Type": "multipart/form-data; boundary=x" }), { limit: LIMIT }))).status).toBe(400);
  });

  it("caps at FERRY_WEB_FORM_LIMIT (64 KiB) by default", async () => {
    expect((await readForm(post(`a=${"x".repeat(64 * 1024 - 2)}`))).get("a")).toHaveLength(64 * 1024 - 2);
    expect((await refusal(readForm(post(`a=${"x".repeat(64 * 1024 - 1)}`)))).status).toBe(413);
  });
});

/** Every source file under app/, tests and this helper aside. */
function appSources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return appSources(full);
    return /\.(ts|tsx)$/.test(name) && !/\.test\.tsx?$/.test(name) && !full.endsWith(path.join("utils", "form.server.ts")) ? [full] : [];
  });
}

/** Ways of reading a request's body other than readForm: the parsers, the stream, a clone, multipart helpers. */
const BODY_READS = [
  /\b(?:request|req)\s*(?:\.\s*clone\s*\(\s*\))?\s*\.\s*(?:formData|json|text|arrayBuffer|blob|bytes|body)\b/,
  /\.\s*formData\s*\(/,
  /\{[^}]*\bbody\b[^}]*\}\s*=\s*(?:request|req)\b/,
  /parseMultipartFormData|unstable_createMemoryUploadHandler|unstable_createFileUploadHandler/,
];

describe("request bodies", () => {
  it("are read only through readForm, everywhere under app/", () => {
    const root = path.resolve(__dirname, "..");
    const offenders = appSources(root).flatMap((file) =>
      readFileSync(file, "utf8")
        .split("\n")
        .map((line, index) => ({ file: path.relative(root, file), line: index + 1, text: line.trim() }))
        .filter(({ text }) => BODY_READS.some((pattern) => pattern.test(text))),
    );
    expect(offenders).toEqual([]);
  });

  it("the scan sees the reads it is there to catch", () => {
    for (const line of [
      "const form = await request.formData();",
      "await args.request.json()",
      "const t = await request.clone().text();",
      "request.body.getReader()",
      "const { body } = request;",
      "await req.arrayBuffer()",
      "const form = await clone.formData();",
      "await unstable_parseMultipartFormData(request, handler)",
    ]) {
      expect({ line, caught: BODY_READS.some((p) => p.test(line)) }).toEqual({ line, caught: true });
    }
    for (const line of ["const body = await response.json();", "setSocket(await response.json())", "document.body.appendChild(a)", "new Response(response.body)"]) {
      expect({ line, caught: BODY_READS.some((p) => p.test(line)) }).toEqual({ line, caught: false });
    }
  });
});
