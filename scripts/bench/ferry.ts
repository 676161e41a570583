import { connectFiles, type FileClient } from "../../tests/support/file-client";
import { FILE_SERVER_PATHS } from "../../contract/files";
import * as curl from "./curl";
import type { BenchUser, EngineProcess } from "./engine";

/**
 * The engine's file protocol as a client speaks it (docs/file-server.md): socket commands, signed
 * download URLs, tus uploads (creation, one PATCH with the whole file, then `commit`).
 */

export interface Ferry {
  files: FileClient;
  /** A fresh signed URL for one file of the personal space. */
  downloadUrl(userPath: string): Promise<string>;
  /** One upload to `userPath`, timed from the creation request to the commit's reply; also the PATCH's and the commit's own seconds. */
  upload(file: string, size: number, hash: string, userPath: string, timeoutMs: number): Promise<curl.Transfer & { patchSeconds: number; commitSeconds: number }>;
  close(): Promise<void>;
}

const b64 = (text: string) => Buffer.from(text, "utf8").toString("base64");

export async function connectFerry(engine: EngineProcess, user: BenchUser): Promise<Ferry> {
  const files = await connectFiles(engine.fileUrl, user.socketToken);
  // Commands on one socket run one at a time; concurrent uploads commit on sockets of their own.
  const commitSocket = () => connectFiles(engine.fileUrl, user.socketToken);
  return {
    files,
    async downloadUrl(userPath) {
      const { url } = await files.ok("download", { groupId: 0, paths: [userPath] });
      return new URL(url, engine.fileUrl).toString();
    },
    async upload(file, size, hash, userPath, timeoutMs) {
      const socket = await commitSocket();
      try {
        const started = process.hrtime.bigint();
        const created = await fetch(new URL(FILE_SERVER_PATHS.uploads, engine.fileUrl), {
          method: "POST",
          headers: {
            "tus-resumable": "1.0.0",
            "upload-length": String(size),
            "upload-metadata": `groupId ${b64("0")},path ${b64(userPath)},overwrite ${b64("1")}`,
            authorization: `Bearer ${user.socketToken}`,
          },
        });
        const location = created.headers.get("location");
        if (created.status !== 201 || !location) throw new Error(`tus creation answered HTTP ${created.status}: ${(await created.text()).slice(0, 200)}`);
        const uploadUrl = new URL(location, engine.fileUrl);
        const createdAt = process.hrtime.bigint();
        const patch = await curl.upload(
          "PATCH",
          uploadUrl.toString(),
          file,
          {
            "Tus-Resumable": "1.0.0",
            "Upload-Offset": "0",
            "Content-Type": "application/offset+octet-stream",
            Authorization: `Bearer ${user.socketToken}`,
          },
          timeoutMs,
        );
        const commitStarted = process.hrtime.bigint();
        const uploadId = uploadUrl.pathname.split("/").filter(Boolean).at(-1)!;
        const committed = await socket.cmd("commit", { uploadId, hash });
        const done = process.hrtime.bigint();
        if (committed.code !== 200) throw new Error(`commit answered ${committed.code} ${committed.message}`);
        if (committed.data.size !== size) throw new Error(`commit stored ${committed.data.size} bytes, sent ${size}`);
        const seconds = (s: bigint, e: bigint) => Number(e - s) / 1e9;
        // curl's own time for the PATCH (its start-up excluded) plus the creation and commit round trips.
        return { status: patch.status, bytes: size, seconds: seconds(started, createdAt) + patch.seconds + seconds(commitStarted, done), patchSeconds: patch.seconds, commitSeconds: seconds(commitStarted, done) };
      } finally {
        await socket.close();
      }
    },
    close: () => files.close(),
  };
}
