import { screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { renderWithI18n } from "../test-utils";
import { formatDuration, TransferRow } from "./transfer-row";
import { TransferStatus, type TransferItem } from "./types";

const item = (patch: Partial<TransferItem> = {}): TransferItem => ({
  id: "t1",
  kind: "upload",
  name: "report.pdf",
  status: TransferStatus.Uploading,
  currentSize: 512 * 1024,
  totalSize: 2 * 1024 * 1024,
  createTime: 1,
  errorMsgKey: null,
  speed: 256 * 1024,
  queued: false,
  paused: false,
  needsFile: false,
  ...patch,
});
const actions = () => ({ pause: vi.fn(), resume: vi.fn(), cancel: vi.fn(), retry: vi.fn(), clear: vi.fn(), provideFile: vi.fn(async () => true) });
const row = (patch: Partial<TransferItem>, lang: "en" | "zh" = "en", a = actions()) => {
  renderWithI18n(
    <ul>
      <TransferRow item={item(patch)} actions={a} />
    </ul>,
    { lang },
  );
  return a;
};

describe("TransferRow", () => {
  it("shows an upload's progress with sizes, speed and time left, and pause and cancel", async () => {
    const a = row({});
    expect(screen.getByRole("progressbar", { name: "Progress of report.pdf" }).getAttribute("aria-valuenow")).toBe("25");
    const text = screen.getByRole("listitem").textContent;
    expect(text).toContain("512.00 KB / 2.00 MB");
    expect(text).toContain("256.00 KB/s");
    expect(text).toContain("0:06 left");
    await userEvent.click(screen.getByRole("button", { name: "Pause report.pdf" }));
    expect(a.pause).toHaveBeenCalledWith("t1");
    await userEvent.click(screen.getByRole("button", { name: "Cancel report.pdf" }));
    expect(a.cancel).toHaveBeenCalledWith("t1");
    expect(screen.queryByRole("button", { name: "Resume report.pdf" })).toBeNull();
  });

  it("a transfer another tab runs shows as running there, without speed or any action, in both languages", () => {
    for (const kind of ["upload", "download"] as const) {
      const status = kind === "upload" ? TransferStatus.Uploading : TransferStatus.Downloading;
      const { unmount } = renderWithI18n(
        <ul>
          <TransferRow item={item({ kind, status, elsewhere: true, pageWritten: kind === "download" })} actions={actions()} />
        </ul>,
        { lang: "en" },
      );
      const text = screen.getByRole("listitem").textContent;
      expect(text).toContain("Running in another tab of this browser");
      expect(text).toContain("512.00 KB / 2.00 MB");
      expect(text).not.toContain("/s");
      expect(screen.queryAllByRole("button")).toEqual([]);
      unmount();
    }
    row({ elsewhere: true }, "zh");
    expect(screen.getByRole("listitem").textContent).toContain("正在此浏览器的另一个标签页中进行");
    expect(screen.queryAllByRole("button")).toEqual([]);
  });

  it("a folder the page writes shows its files done of total, and once saved lists each file not saved with its reason, in both languages", () => {
    const folder = { files: 6, done: 4, refused: [] };
    const { unmount } = renderWithI18n(
      <ul>
        <TransferRow item={item({ kind: "download", name: "album", status: TransferStatus.Downloading, pageWritten: true, folder })} actions={actions()} />
      </ul>,
      { lang: "en" },
    );
    expect(screen.getByRole("listitem", { name: "album" }).textContent).toContain("4 of 6 files");
    expect(screen.getByRole("button", { name: "Pause album" })).toBeTruthy();
    unmount();
    const refused = { files: 6, done: 6, refused: [{ name: "sub/secret.txt", errorMsgKey: "transfers.error.download-refused" }, { name: "b.bin", errorMsgKey: "transfers.error.verify-failed" }] };
    const ended = item({ kind: "download", name: "album", status: TransferStatus.Downloaded, pageWritten: true, verified: false, folder: refused });
    const second = renderWithI18n(
      <ul>
        <TransferRow item={ended} actions={actions()} />
      </ul>,
      { lang: "en" },
    );
    const text = screen.getByRole("listitem", { name: "album" }).textContent;
    expect(text).toContain("Saved, except the files listed below");
    expect(text).toContain("6 of 6 files, 2 not saved:");
    expect(text).toContain("b.bin: The saved file does not match the file on the server");
    expect(text).not.toContain("Saved and checked");
    second.unmount();
    renderWithI18n(
      <ul>
        <TransferRow item={{ ...ended, verified: true, folder: { files: 6, done: 6, refused: [] } }} actions={actions()} />
      </ul>,
      { lang: "zh" },
    );
    expect(screen.getByRole("listitem", { name: "album" }).textContent).toContain("已保存并校验：每个文件都与服务器上的完全一致2.00 MB6/6 个文件");
  });

  it("counts a batch's files and a folder's in the singular for one, in both languages", () => {
    const one = renderWithI18n(
      <ul>
        <TransferRow item={item({ id: "g", name: "", status: TransferStatus.Uploading, batch: { files: 1, uploaded: 0, failed: 0, retryable: 0 } })} actions={actions()} />
        <TransferRow item={item({ id: "h", name: "pics", status: TransferStatus.Uploading, batch: { files: 1, uploaded: 0, failed: 0, retryable: 0 } })} actions={actions()} />
        <TransferRow item={item({ id: "f", kind: "download", name: "album", status: TransferStatus.Downloading, pageWritten: true, folder: { files: 1, done: 0, refused: [] } })} actions={actions()} />
      </ul>,
      { lang: "en" },
    );
    expect(screen.getByRole("listitem", { name: "1 file" }).textContent).toContain("0 of 1 uploaded");
    expect(screen.getByRole("listitem", { name: "pics (1 file)" })).toBeTruthy();
    expect(screen.getByRole("listitem", { name: "album" }).textContent).toContain("0 of 1 file");
    expect(screen.getByRole("listitem", { name: "album" }).textContent).not.toContain("files");
    one.unmount();
    const two = renderWithI18n(
      <ul>
        <TransferRow item={item({ id: "g", name: "pics", status: TransferStatus.Uploading, batch: { files: 2, uploaded: 1, failed: 0, retryable: 0 } })} actions={actions()} />
      </ul>,
      { lang: "en" },
    );
    expect(screen.getByRole("listitem", { name: "pics (2 files)" }).textContent).toContain("1 of 2 uploaded");
    two.unmount();
    renderWithI18n(
      <ul>
        <TransferRow item={item({ id: "g", name: "pics", status: TransferStatus.Uploading, batch: { files: 1, uploaded: 0, failed: 0, retryable: 0 } })} actions={actions()} />
      </ul>,
      { lang: "zh" },
    );
    expect(screen.getByRole("listitem", { name: "pics（1 个文件）" }).textContent).toContain("已上传 0/1 个");
  });

  it("offers the batch summary's Retry only when a refused file may fare otherwise", async () => {
    const ended = (retryable: number) => item({ id: "g", name: "pics", status: TransferStatus.Uploaded, batch: { files: 3, uploaded: 1, failed: 2, retryable } });
    const first = renderWithI18n(
      <ul>
        <TransferRow item={ended(0)} actions={actions()} />
      </ul>,
      { lang: "en" },
    );
    expect(screen.getByRole("listitem", { name: "pics (3 files)" }).textContent).toContain("1 of 3 uploaded, 2 refused");
    expect(screen.queryByRole("button", { name: "Retry pics (3 files)" })).toBeNull();
    first.unmount();
    const a = actions();
    renderWithI18n(
      <ul>
        <TransferRow item={ended(1)} actions={a} />
      </ul>,
      { lang: "en" },
    );
    await userEvent.click(screen.getByRole("button", { name: "Retry pics (3 files)" }));
    expect(a.retry).toHaveBeenCalledWith("g");
  });

  it("names the first files of a folder that were not saved and counts the rest, in both languages", () => {
    const refused = Array.from({ length: 12 }, (_v, i) => ({ name: `sub/f${i}.txt`, errorMsgKey: "transfers.skipped-by-filter" }));
    const ended = item({ kind: "download", name: "album", status: TransferStatus.Downloaded, pageWritten: true, verified: false, folder: { files: 40, done: 40, refused } });
    const en = renderWithI18n(
      <ul>
        <TransferRow item={ended} actions={actions()} />
      </ul>,
      { lang: "en" },
    );
    const row = screen.getByRole("listitem", { name: "album" });
    expect(row.textContent).toContain("40 of 40 files, 12 not saved:");
    expect(screen.getAllByText(/^sub\/f\d+\.txt: Skipped/)).toHaveLength(5);
    expect(row.textContent).toContain("sub/f4.txt: Skipped");
    expect(row.textContent).not.toContain("sub/f5.txt");
    expect(row.textContent).toContain("and 7 more files not saved");
    en.unmount();
    renderWithI18n(
      <ul>
        <TransferRow item={{ ...ended, folder: { files: 40, done: 40, refused: refused.slice(0, 6) } }} actions={actions()} />
      </ul>,
      { lang: "zh" },
    );
    expect(screen.getByRole("listitem", { name: "album" }).textContent).toContain("另有 1 个文件未保存");
  });

  it("a transfer that failed in the tab running it shows that failure here, without Retry or Remove, in both languages", () => {
    const failed = item({ status: TransferStatus.UploadFailed, errorMsgKey: "error.1008", elsewhere: true });
    const en = renderWithI18n(
      <ul>
        <TransferRow item={failed} actions={actions()} />
      </ul>,
      { lang: "en" },
    );
    expect(screen.getByRole("listitem").textContent).toContain("Failed in another tab of this browser: Permission denied");
    expect(screen.queryAllByRole("button")).toEqual([]);
    en.unmount();
    row({ status: TransferStatus.UploadFailed, errorMsgKey: "error.1008", elsewhere: true }, "zh");
    expect(screen.getByRole("listitem").textContent).toContain("在此浏览器的另一个标签页中失败：权限不足");
    expect(screen.queryAllByRole("button")).toEqual([]);
  });

  it("shows a file the space's filter skipped as skipped, not failed, without Retry, in both languages", () => {
    row({ status: TransferStatus.UploadFailed, errorMsgKey: "error.4342", errorVars: { name: "report.pdf" } });
    expect(screen.getByRole("listitem").textContent).toContain("Skipped: the file filter of this space leaves out files of this name or size");
    expect(screen.getByRole("listitem").textContent).not.toContain("Upload failed");
    expect(screen.queryByRole("button", { name: "Retry report.pdf" })).toBeNull();
    expect(screen.getByRole("button", { name: "Remove report.pdf from the list" })).toBeTruthy();
  });

  it("shows a skipped file in Chinese", () => {
    row({ status: TransferStatus.UploadFailed, errorMsgKey: "error.4342", errorVars: { name: "report.pdf" } }, "zh");
    expect(screen.getByRole("listitem").textContent).toContain("已跳过：此空间的文件过滤规则不传输此名称或大小的文件");
  });

  it("shows the checking state with a full bar and no actions", () => {
    row({ status: TransferStatus.ServerChecking, currentSize: 2 * 1024 * 1024 });
    expect(screen.getByText("Checking on the server")).toBeTruthy();
    expect(screen.getByRole("progressbar").getAttribute("aria-valuenow")).toBe("100");
    expect(screen.queryAllByRole("button")).toEqual([]);
  });

  it("offers resume for a paused upload and a file picker for one that lost its file", async () => {
    const a = row({ paused: true, speed: 0 });
    expect(screen.getByText("Paused")).toBeTruthy();
    await userEvent.click(screen.getByRole("button", { name: "Resume report.pdf" }));
    expect(a.resume).toHaveBeenCalledWith("t1");
  });

  it("asks for the same file again after a reload", () => {
    row({ paused: true, needsFile: true, speed: 0 });
    expect(screen.getByText("Paused: choose or drop the same file again to continue")).toBeTruthy();
    expect(screen.getByRole("button", { name: "Choose the file report.pdf again" })).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Resume report.pdf" })).toBeNull();
  });

  it("shows only the total when done", () => {
    row({ status: TransferStatus.Uploaded, currentSize: 2 * 1024 * 1024 });
    expect(screen.queryByRole("progressbar")).toBeNull();
    expect(screen.getByRole("listitem").textContent).toContain("Uploaded2.00 MB");
    expect(screen.getByRole("button", { name: "Remove report.pdf from the list" })).toBeTruthy();
  });

  it("shows the translated engine message of a failure, in Chinese too, with retry", async () => {
    const a = row({ status: TransferStatus.UploadFailed, errorMsgKey: "error.1008" }, "zh");
    expect(screen.getByRole("listitem").textContent).toContain("上传失败: 权限不足");
    await userEvent.click(screen.getByRole("button", { name: "重试 report.pdf" }));
    expect(a.retry).toHaveBeenCalledWith("t1");
  });

  it("fills the limit into the size-overflow message and offers no retry", () => {
    row({ status: TransferStatus.UploadFailed, errorMsgKey: "error.4205", errorVars: { limit: 1024 } });
    expect(screen.getByRole("listitem").textContent).toContain("The file is larger than the server allows (1.00 KB)");
    expect(screen.queryByRole("button", { name: "Retry report.pdf" })).toBeNull();
  });

  it("labels a waiting download", () => {
    row({ kind: "download", status: TransferStatus.WaitDownload, totalSize: -1, currentSize: 0 });
    expect(screen.getByText("Waiting to download")).toBeTruthy();
  });

  it("formats time left", () => {
    expect(formatDuration(5)).toBe("0:05");
    expect(formatDuration(754)).toBe("12:34");
    expect(formatDuration(3723)).toBe("1:02:03");
  });

  it("a P2P send shows whom to, the path in words, progress, speed and time left, and Cancel (en and zh)", async () => {
    const p2p = { direction: "send" as const, peer: "bob", path: "direct" as const, state: "running" as const, entries: 3 };
    const a = row({ id: "p2p:x", p2p });
    const text = screen.getByRole("listitem", { name: "report.pdf and 2 more" }).textContent;
    expect(text).toContain("To bob · direct between the browsers");
    expect(text).toContain("Sending");
    expect(text).toContain("512.00 KB / 2.00 MB");
    expect(text).toContain("256.00 KB/s");
    expect(text).toContain("0:06 left");
    expect(screen.getByRole("progressbar", { name: "Progress of report.pdf" }).getAttribute("aria-valuenow")).toBe("25");
    expect(screen.queryByRole("button", { name: /^Pause/ })).toBeNull();
    await userEvent.click(screen.getByRole("button", { name: "Cancel report.pdf and 2 more" }));
    expect(a.cancel).toHaveBeenCalledWith("p2p:x");
    screen.getByRole("listitem").remove();
    row({ id: "p2p:y", kind: "download", status: TransferStatus.Downloading, p2p: { ...p2p, direction: "receive", path: "relay", entries: 1 } }, "zh");
    const zh = screen.getByRole("listitem", { name: "report.pdf" }).textContent;
    expect(zh).toContain("来自 bob · 经服务器中转");
    expect(zh).toContain("正在接收");
  });

  it("a P2P row waiting, declined or failed says so, and a finished one can be removed", async () => {
    const p2p = { direction: "send" as const, peer: "bob", path: null, entries: 1 };
    const { unmount } = renderWithI18n(
      <ul>
        <TransferRow item={item({ p2p: { ...p2p, state: "offered" } })} actions={actions()} />
      </ul>,
    );
    expect(screen.getByRole("listitem").textContent).toContain("Waiting for bob to accept");
    expect(screen.queryByRole("progressbar")).toBeNull();
    unmount();
    const a = row({ status: TransferStatus.UploadFailed, p2p: { ...p2p, state: "declined" } });
    expect(screen.getByRole("listitem").textContent).toContain("bob declined");
    expect(screen.queryByRole("button", { name: "Retry report.pdf" })).toBeNull();
    await userEvent.click(screen.getByRole("button", { name: "Remove report.pdf from the list" }));
    expect(a.clear).toHaveBeenCalledWith("t1");
    screen.getByRole("listitem").remove();
    row({ status: TransferStatus.UploadFailed, p2p: { ...p2p, path: "direct", state: "failed", reason: "p2p.reason.hash" } });
    expect(screen.getByRole("listitem").textContent).toContain("Failed: a file arrived different from the one sent");
  });
});
