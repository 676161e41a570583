import { describe, expect, it } from "vitest";
import { ErrorCode } from "../../contract/errors";
import { FolderTooLarge } from "./folder-download";
import { FolderDownloadError, makeFreeFolder, refusalOfFile, walkOrRemove } from "./folder-download.client";

/** A directory of the File System Access API, in memory: sub-folders and files by name. */
class FakeDirectory {
  readonly kind = "directory";
  readonly dirs = new Map<string, FakeDirectory>();
  readonly files = new Set<string>();
  removed = false;

  constructor(readonly name: string) {}

  async getDirectoryHandle(name: string, options?: { create?: boolean }): Promise<FakeDirectory> {
    const known = this.dirs.get(name);
    if (known) return known;
    if (this.files.has(name)) throw new DOMException("a file", "TypeMismatchError");
    if (!options?.create) throw new DOMException("none", "NotFoundError");
    const made = new FakeDirectory(name);
    this.dirs.set(name, made);
    return made;
  }

  async remove() {
    this.removed = true;
  }
}

const asHandle = (dir: FakeDirectory) => dir as unknown as FileSystemDirectoryHandle;

describe("folder downloads written by the page: the folder on disk", () => {
  it("makes a new folder beside one of the same name (and a file of it) instead of writing into the user's", async () => {
    const parent = new FakeDirectory("Downloads");
    const mine = await parent.getDirectoryHandle("album", { create: true });
    parent.files.add("album (1)");
    const made = (await makeFreeFolder(asHandle(parent), "album")) as unknown as FakeDirectory;
    expect(made.name).toBe("album (2)");
    expect(made).not.toBe(mine);
    expect(((await makeFreeFolder(asHandle(parent), "photos")) as unknown as FakeDirectory).name).toBe("photos");
  });

  it("removes the folder it made when listing the folder fails, and keeps it when the listing works", async () => {
    const failing = new FakeDirectory("album");
    const refused = Object.assign(new Error("refused"), { code: ErrorCode.PermissionDenied });
    await expect(walkOrRemove(asHandle(failing), () => Promise.reject(refused))).rejects.toBe(refused);
    expect(failing.removed).toBe(true);
    const large = new FakeDirectory("big");
    await expect(walkOrRemove(asHandle(large), () => Promise.reject(new FolderTooLarge(10)))).rejects.toBeInstanceOf(FolderTooLarge);
    expect(large.removed).toBe(true);
    const fine = new FakeDirectory("ok");
    await expect(walkOrRemove(asHandle(fine), async () => ({ files: [], folders: [] }))).resolves.toEqual({ files: [], folders: [] });
    expect(fine.removed).toBe(false);
  });

  it("takes the engine's refusal of one file as that file's, and a dropped connection or a server error as the folder's", () => {
    const filtered = refusalOfFile({ code: ErrorCode.FileFiltered, data: { name: "x.tmp" } });
    expect(filtered).not.toBeInstanceOf(FolderDownloadError);
    expect(filtered.errorMsgKey).toBe("transfers.skipped-by-filter");
    const forbidden = refusalOfFile({ code: ErrorCode.PermissionDenied });
    expect(forbidden).not.toBeInstanceOf(FolderDownloadError);
    expect(forbidden.errorMsgKey).toBe(`error.${ErrorCode.PermissionDenied}`);
    for (const error of [{ code: ErrorCode.Disconnected }, { code: ErrorCode.ServerError }, new Error("socket closed")]) {
      const failure = refusalOfFile(error);
      expect(failure).toBeInstanceOf(FolderDownloadError);
      expect(failure.errorMsgKey).toBe("transfers.error.network");
    }
  });
});
