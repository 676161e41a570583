import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { ErrorCode } from "../../contract/errors";
import { CHUNK_HEADER, formatRanges, RANGES_HEADER } from "../../contract/upload-chunks";
import { uploadBatchResult } from "../../contract/files";
import { fileServerEntries, openApiDocument } from "../../server/http/openapi";

type Operation = { tags: string[]; parameters?: { name: string; in: string; required?: boolean }[]; responses: Record<string, { description: string; headers?: Record<string, unknown>; content?: Record<string, { schema: unknown }> }>; [key: string]: unknown };
type Document = {
  servers: { url: string }[];
  paths: Record<string, { servers?: { url: string; description: string }[] } & Record<string, unknown>>;
  components: { schemas: Record<string, { pattern?: string; [key: string]: unknown }>; securitySchemes: Record<string, unknown> };
};

const document = openApiDocument([], "test") as unknown as Document;
const op = (path: string, method: string) => document.paths[path]![method] as Operation;
const codesOf = (o: Operation, status: string) => [...o.responses[status]!.description.matchAll(/^- (\d+) /gm)].map((m) => Number(m[1]));

describe("the OpenAPI document's file server", () => {
  it("has the upload and download paths, answered on the file server's port (2480), not the API's", () => {
    expect(document.servers).toEqual([{ url: "http://127.0.0.1:8090" }]);
    const fileServerPaths = Object.keys(document.paths).filter((p) => !p.startsWith("/api/"));
    expect(fileServerPaths.sort()).toEqual(["/download/{ticket}/{name}", "/p2p/{transferId}/{file}", "/uploads/", "/uploads/batch", "/uploads/{id}"]);
    for (const p of fileServerPaths) expect(document.paths[p]!.servers, p).toEqual([{ url: "http://127.0.0.1:2480", description: expect.stringContaining("File server") }]);
    expect(Object.keys(document.paths["/uploads/"]!)).toEqual(expect.arrayContaining(["options", "post"]));
    expect(Object.keys(document.paths["/uploads/{id}"]!)).toEqual(expect.arrayContaining(["head", "patch", "delete"]));
    expect(op("/uploads/{id}", "patch").tags).toEqual(["file-server"]);
  });

  it("describes Ferry's chunks: Ferry-Chunk on PATCH with Upload-Offset, Ferry-Ranges on HEAD, and the refusal codes with their statuses", () => {
    const patch = op("/uploads/{id}", "patch");
    expect(patch.parameters?.map((p) => p.name)).toEqual(expect.arrayContaining([CHUNK_HEADER, "Upload-Offset", "Content-Length"]));
    expect(codesOf(patch, "409")).toEqual([ErrorCode.InvalidData]);
    expect(codesOf(patch, "411")).toEqual([ErrorCode.InvalidData]);
    expect(codesOf(patch, "413").sort()).toEqual([ErrorCode.InvalidData, ErrorCode.UploadPartTooLarge].sort());
    expect(codesOf(patch, "429")).toEqual([ErrorCode.UploadsBusy]);
    expect(patch.responses["204"]!.headers).toHaveProperty(RANGES_HEADER);
    expect(op("/uploads/{id}", "head").responses["200"]!.headers).toHaveProperty(RANGES_HEADER);
    // The Ferry-Ranges schema takes what the engine writes (inclusive ends) and nothing else.
    const pattern = new RegExp(document.components.schemas.FerryRanges!.pattern!);
    expect(pattern.test(formatRanges([[0, 1048576], [3145728, 4194304]]))).toBe(true);
    expect(formatRanges([[0, 1048576]])).toBe("0-1048575");
    expect(pattern.test("")).toBe(true);
    expect(pattern.test("0-5,x")).toBe(false);
  });

  it("lists exactly the tus extensions offered, and refuses Upload-Concat with 501", () => {
    const options = op("/uploads/", "options");
    expect((options.responses["204"]!.headers!["Tus-Extension"] as { schema: { const: string } }).schema.const).toBe("creation,creation-with-upload,termination,expiration,ferry-chunks");
    expect(codesOf(op("/uploads/", "post"), "501")).toEqual([ErrorCode.UnsupportedOperation]);
    expect(codesOf(op("/uploads/", "post"), "413").sort()).toEqual([ErrorCode.FileTooLarge, ErrorCode.UploadPartTooLarge].sort());
  });

  it("describes the batch body and its reply with the contract's schemas", () => {
    const batch = op("/uploads/batch", "post");
    expect(batch.description).toContain("32-bit big-endian");
    expect(batch["x-batch-header"]).toEqual({ $ref: "#/components/schemas/UploadBatchHeader" });
    expect(batch.responses["200"]!.content!["application/json"]!.schema).toEqual({ $ref: "#/components/schemas/UploadBatchReply" });
    expect(document.components.schemas.UploadBatchHeader).toMatchObject({ properties: { files: { maxItems: 1000 } } });
    expect(uploadBatchResult.safeParse({ path: "/a", ok: false, code: 4155, message: "m", data: null }).success).toBe(true);
    expect(codesOf(batch, "429")).toEqual([ErrorCode.UploadsBusy]);
  });

  it("describes the ranged download: Range and If-Range in, 206 with Content-Range, 416", () => {
    const get = op("/download/{ticket}/{name}", "get");
    expect(get.parameters?.map((p) => p.name)).toEqual(["Range", "If-Range"]);
    expect(Object.keys(get.responses)).toEqual(expect.arrayContaining(["200", "206", "403", "404", "410", "416"]));
    expect(get.responses["206"]!.headers).toHaveProperty("Content-Range");
  });

  it("names the TLS port too when the file server listens with TLS", () => {
    expect(fileServerEntries("0.0.0.0", { plain: null, tls: 2481 })).toEqual([{ url: "https://127.0.0.1:2481", description: expect.stringContaining("TLS") }]);
  });

  it("describes the P2P relay: PATCH at Ferry-Offset with its caps (4703 as 413 and 507), HEAD's offset and size, GET with Range and 416", () => {
    const patch = op("/p2p/{transferId}/{file}", "patch");
    expect(patch.parameters!.map((p) => p.name)).toEqual(expect.arrayContaining(["Ferry-Offset", "Content-Length"]));
    expect(codesOf(patch, "409")).toEqual(expect.arrayContaining([ErrorCode.InvalidData, ErrorCode.P2pWrongState, ErrorCode.P2pHashMismatch]));
    expect(codesOf(patch, "413")).toEqual(expect.arrayContaining([ErrorCode.InvalidData, ErrorCode.P2pRelayFull]));
    expect(codesOf(patch, "507")).toEqual([ErrorCode.P2pRelayFull]);
    expect(codesOf(patch, "404")).toEqual([ErrorCode.P2pNoSuchTransfer]);
    expect(Object.keys(op("/p2p/{transferId}/{file}", "head").responses["200"]!.headers!)).toEqual(["Ferry-Offset", "Ferry-Size"]);
    expect(Object.keys(op("/p2p/{transferId}/{file}", "get").responses)).toEqual(expect.arrayContaining(["200", "206", "416"]));
  });

  it("is what docs/openapi.json holds for these paths", async () => {
    const file = JSON.parse(await readFile(new URL("../../docs/openapi.json", import.meta.url), "utf8")) as Document;
    for (const p of ["/uploads/", "/uploads/{id}", "/uploads/batch", "/download/{ticket}/{name}"]) expect(file.paths[p], p).toEqual(document.paths[p]);
    expect(file.components.schemas).toEqual(document.components.schemas);
  });
});
