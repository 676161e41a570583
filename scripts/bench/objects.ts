import http from "node:http";
import { open, rm } from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import {
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  S3Client,
  UploadPartCommand,
} from "@aws-sdk/client-s3";
import { blake3File } from "../../server/uploads/hash";
import { S3RVER_KEYS, type S3Server, startS3rver } from "../../tests/support/s3";
import * as curl from "./curl";
import type { EngineProcess } from "./engine";
import { type Ferry, connectFerry } from "./ferry";
import { log, onCleanup, run, tempDir } from "./lifecycle";
import { failure, outcome, type PartRows, ratio } from "./report";
import { type Contender, runSeries } from "./series";
import { writeTestFile } from "./test-file";

/**
 * Part `objects` (docs/bench.md, "Object storage"): upload and download through the engine into a
 * personal space whose home is on an S3-compatible storage (s3rver, in its own process) ÷ the AWS
 * SDK v3 driving the same s3rver directly, on the same file, turn about, best of `rounds` each.
 * Upload: tus creation, one PATCH with the whole file (curl) and `commit` ÷ CreateMultipartUpload,
 * UploadPart of the storage's slice size one part at a time (as the engine sends them) and
 * CompleteMultipartUpload (and, an extra ratio, 4 parts in flight). Download: the engine's signed URL
 * (curl → /dev/null) ÷ GetObject streamed and dropped (and, an extra ratio, curl signing its own GET
 * straight to s3rver).
 */

const MIB = 1024 * 1024;
/** The part's file is at most this big: s3rver writes every part and then the whole object to disk again. */
export const OBJECTS_MAX_SIZE = 256 * MIB;
/** The storage's multipart part size (the engine's default slice), and the SDK's. */
const PART_SIZE = 8 * MIB;
/** lib-storage's Upload default (queueSize 4): what a client sending parts at once reaches, an extra ratio. */
const SDK_PARTS_IN_FLIGHT = 4;
/** The storage's folder in the bucket; the SDK's own uploads go outside it. */
const STORAGE_FOLDER = "bench";
/** curl's own S3 signature (SigV4, curl 7.75+); s3rver wants the payload hash header, which curl 7.x does not send. */
const CURL_SIGNED = ["--aws-sigv4", "aws:amz:us-east-1:s3", "--user", `${S3RVER_KEYS.accessKeyId}:${S3RVER_KEYS.secretAccessKey}`, "-H", "x-amz-content-sha256: UNSIGNED-PAYLOAD"];
const ACCOUNT = "objects";

const syncDisk = async () => void (await run("sync", [], 300_000));
const secondsSince = (started: bigint) => Number(process.hrtime.bigint() - started) / 1e9;

/** The SDK client as the engine configures its own (server/storage/s3.ts): path style, no checksum trailers, keep-alive sockets. */
function sdkClient(s3: S3Server): S3Client {
  return new S3Client({
    endpoint: s3.endpoint,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: S3RVER_KEYS,
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
    requestHandler: { httpAgent: new http.Agent({ keepAlive: true }) },
  });
}

/** A multipart upload of `file` in PART_SIZE parts, `inFlight` parts sent at once; each part read from disk as it is sent. */
async function sdkUpload(client: S3Client, bucket: string, key: string, file: string, size: number, inFlight: number, timeoutMs: number): Promise<curl.Transfer> {
  const abortSignal = AbortSignal.timeout(timeoutMs);
  const handle = await open(file, "r");
  try {
    const started = process.hrtime.bigint();
    const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }), { abortSignal });
    const count = Math.ceil(size / PART_SIZE);
    const parts: { ETag: string | undefined; PartNumber: number }[] = [];
    let next = 0;
    const sender = async () => {
      while (next < count) {
        const index = next++;
        const length = Math.min(PART_SIZE, size - index * PART_SIZE);
        const body = Buffer.allocUnsafe(length);
        const { bytesRead } = await handle.read(body, 0, length, index * PART_SIZE);
        if (bytesRead !== length) throw new Error(`read ${bytesRead} of ${length} bytes of part ${index + 1}`);
        const out = await client.send(new UploadPartCommand({ Bucket: bucket, Key: key, UploadId, PartNumber: index + 1, Body: body, ContentLength: length }), { abortSignal });
        parts[index] = { ETag: out.ETag, PartNumber: index + 1 };
      }
    };
    await Promise.all(Array.from({ length: Math.min(inFlight, count) }, sender));
    await client.send(new CompleteMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId, MultipartUpload: { Parts: parts } }), { abortSignal });
    return { status: 200, bytes: size, seconds: secondsSince(started) };
  } finally {
    await handle.close();
  }
}

/** GetObject of the whole object, its body read and dropped. */
async function sdkDownload(client: S3Client, bucket: string, key: string, size: number, timeoutMs: number): Promise<curl.Transfer> {
  const started = process.hrtime.bigint();
  const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }), { abortSignal: AbortSignal.timeout(timeoutMs) });
  let bytes = 0;
  for await (const chunk of out.Body as Readable) bytes += (chunk as Buffer).length;
  const seconds = secondsSince(started);
  if (bytes !== size) throw new Error(`GetObject gave ${bytes} bytes, the object has ${size}`);
  return { status: 200, bytes, seconds };
}

async function storedSize(client: S3Client, bucket: string, key: string): Promise<number | undefined> {
  return (await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }))).ContentLength;
}

/** `size` over OBJECTS_MAX_SIZE: the part writes its own file of OBJECTS_MAX_SIZE bytes. */
export async function objectRows(opts: { engine: EngineProcess; file: string; size: number; hash: string; rounds: number; timeoutMs: number }): Promise<PartRows> {
  const rows: PartRows = { headline: {}, extra: {}, raw: {}, details: {} };
  const fail = (reason: string) => {
    log(`objects: ${reason}`);
    rows.headline.objects_upload_vs_sdk = rows.headline.objects_download_vs_sdk = { value: null, reason };
    return rows;
  };
  let { file, size, hash } = opts;
  let s3: S3Server;
  let client: S3Client;
  let ferry: Ferry;
  try {
    if (size > OBJECTS_MAX_SIZE) {
      size = OBJECTS_MAX_SIZE;
      file = path.join(await tempDir("objects"), "objects.bin");
      log(`  writing a ${size / MIB} MiB file for the object-storage rows…`);
      await writeTestFile(file, size);
      hash = await blake3File(file);
    }
    s3 = await startS3rver("ferry-bench");
    onCleanup(() => s3.stop());
    client = sdkClient(s3);
    onCleanup(async () => client.destroy());
    const token = await opts.engine.adminToken();
    const storage = await opts.engine.call<{ id: number }>("POST", "/api/admin/storages", { name: "Bench objects", provider: "s3compatible", endpoint: s3.endpoint, bucket: s3.bucket, region: "us-east-1", path: STORAGE_FOLDER, sliceSize: PART_SIZE, ...S3RVER_KEYS }, token);
    if (storage.code !== 200) throw new Error(`adding the S3 storage answered ${storage.code} ${storage.message}`);
    const user = await opts.engine.createUser(ACCOUNT, { storageId: storage.data!.id });
    ferry = await connectFerry(opts.engine, user);
  } catch (error) {
    return fail(`setup failed: ${failure(error)}`);
  }
  const { bucket } = s3;
  const ferryKey = (name: string) => `${STORAGE_FOLDER}/users/${ACCOUNT}/${name}`;
  log(`  s3rver at ${s3.endpoint}, the ${ACCOUNT} user's home on it (${size / MIB} MiB file, ${PART_SIZE / MIB} MiB parts)`);
  rows.details.objects = { size_bytes: size, part_bytes: PART_SIZE, store: "s3rver 3.7.1 (file-backed emulator)" };

  // The object both downloads read, put there through the engine and checked once, untimed:
  // its stored size, and its bytes back through the engine's download against the file's BLAKE3.
  try {
    await ferry.upload(file, size, hash, "/bench.bin", opts.timeoutMs);
    const stored = await storedSize(client, bucket, ferryKey("bench.bin"));
    if (stored !== size) throw new Error(`the stored object ${ferryKey("bench.bin")} has ${stored} bytes, the file ${size}`);
    const copy = path.join(await tempDir("objects-check"), "bench.bin");
    const url = await ferry.downloadUrl("/bench.bin");
    const got = await run("curl", ["--silent", "--show-error", "--noproxy", "*", "--fail", "--output", copy, url], opts.timeoutMs);
    if (got.code !== 0) throw new Error(`downloading it through the engine: curl exit ${got.code} ${got.stderr.trim()}`);
    if ((await blake3File(copy)) !== hash) throw new Error("the download through the engine differs from the file (BLAKE3)");
    await rm(path.dirname(copy), { recursive: true, force: true });
  } catch (error) {
    return fail(`integrity check failed: ${failure(error)}`);
  }
  await syncDisk();

  log("  uploads into the store: through the engine (tus, commit) and the SDK's multipart upload, turn about…");
  // Each round's object is checked (its size in the store) and deleted untimed, then the disk flushed,
  // so no round pays for another's write-back.
  const upload = (name: string, key: (round: number) => string, send: (round: number) => Promise<curl.Transfer>): Contender => {
    let sent: string | undefined;
    return {
      name,
      before: syncDisk,
      once: (round) => {
        sent = key(round);
        return send(round);
      },
      after: async () => {
        if (sent === undefined) return;
        const k = sent;
        sent = undefined;
        const stored = await storedSize(client, bucket, k).catch(() => undefined);
        await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: k }));
        await syncDisk();
        if (stored !== size) throw new Error(`the stored object ${k} has ${stored} bytes, the file ${size}`);
      },
    };
  };
  const ferryPhases: { patchSeconds: number; commitSeconds: number }[] = [];
  const uploads = [
    upload("ferry_upload", (r) => ferryKey(`upload-${r + 1}.bin`), async (r) => {
      const t = await ferry.upload(file, size, hash, `/upload-${r + 1}.bin`, opts.timeoutMs);
      // Where the engine's time goes: the PATCH (parts sent while it arrives) and the commit (the last part, CompleteMultipartUpload).
      ferryPhases.push({ patchSeconds: t.patchSeconds, commitSeconds: t.commitSeconds });
      return t;
    }),
    upload("sdk_upload", (r) => `sdk/upload-${r + 1}.bin`, (r) => sdkUpload(client, bucket, `sdk/upload-${r + 1}.bin`, file, size, 1, opts.timeoutMs)),
    upload("sdk_upload_parallel", (r) => `sdk/parallel-${r + 1}.bin`, (r) => sdkUpload(client, bucket, `sdk/parallel-${r + 1}.bin`, file, size, SDK_PARTS_IN_FLIGHT, opts.timeoutMs)),
  ];
  const up = await runSeries(uploads, opts.rounds, 0);

  log("  downloads from the store: through the engine (curl → /dev/null) and the SDK's GetObject, turn about…");
  const downloads: Contender[] = [
    {
      name: "ferry_download",
      once: async () => {
        const t = await curl.download(await ferry.downloadUrl("/bench.bin"), opts.timeoutMs);
        if (t.bytes !== size) throw new Error(`the download gave ${t.bytes} bytes, the object has ${size}`);
        return t;
      },
    },
    { name: "sdk_download", once: () => sdkDownload(client, bucket, ferryKey("bench.bin"), size, opts.timeoutMs) },
    // The same client as the engine's row, straight to the store: what the engine's hop costs, client code aside.
    { name: "curl_direct_download", once: () => curl.download(`${s3.endpoint}/${bucket}/${ferryKey("bench.bin")}`, opts.timeoutMs, CURL_SIGNED) },
  ];
  // One untimed round: s3rver's file comes into the page cache, both clients' code warms up.
  const down = await runSeries(downloads, opts.rounds, 1);
  rows.details.objects_uploads = up;
  rows.details.objects_downloads = down;
  rows.details.objects_ferry_upload_phases = ferryPhases;

  const raw = rows.raw;
  raw.objects_ferry_upload_mib_s = up.ferry_upload?.best ?? null;
  raw.objects_sdk_upload_mib_s = up.sdk_upload?.best ?? null;
  raw.objects_sdk_upload_4_mib_s = up.sdk_upload_parallel?.best ?? null;
  raw.objects_ferry_download_mib_s = down.ferry_download?.best ?? null;
  raw.objects_sdk_download_mib_s = down.sdk_download?.best ?? null;
  raw.objects_curl_download_mib_s = down.curl_direct_download?.best ?? null;
  rows.headline.objects_upload_vs_sdk = outcome(ratio(raw.objects_ferry_upload_mib_s, raw.objects_sdk_upload_mib_s), up.ferry_upload?.error ?? up.sdk_upload?.error);
  rows.extra.objects_upload_vs_sdk_parallel = outcome(ratio(raw.objects_ferry_upload_mib_s, raw.objects_sdk_upload_4_mib_s), up.ferry_upload?.error ?? up.sdk_upload_parallel?.error);
  rows.headline.objects_download_vs_sdk = outcome(ratio(raw.objects_ferry_download_mib_s, raw.objects_sdk_download_mib_s), down.ferry_download?.error ?? down.sdk_download?.error);
  rows.extra.objects_download_vs_curl_direct = outcome(ratio(raw.objects_ferry_download_mib_s, raw.objects_curl_download_mib_s), down.ferry_download?.error ?? down.curl_direct_download?.error);
  // The table shows the extra ratios; the JSON keeps them in details.
  rows.details.objects_upload_vs_sdk_parallel = rows.extra.objects_upload_vs_sdk_parallel.value;
  rows.details.objects_download_vs_curl_direct = rows.extra.objects_download_vs_curl_direct.value;
  await ferry.close();
  return rows;
}
