import { readFile } from "node:fs/promises";
import * as curl from "./curl";
import type { Ferry } from "./ferry";
import { log } from "./lifecycle";

/**
 * The engine's peak resident memory under load: VmRSS of its process read every 100 ms while 50
 * full downloads and 10 full uploads of the bench file run at once. The load ends when every
 * transfer has ended (each bounded by its own time-out), successful or not.
 */

export interface RssResult {
  peakMiB: number;
  /** Before the load: how much of the peak the load itself added. */
  idleMiB: number;
  samples: number;
  downloadsOk: number;
  uploadsOk: number;
  errors: string[];
}

async function vmRssKiB(pid: number): Promise<number | null> {
  try {
    const status = await readFile(`/proc/${pid}/status`, "utf8");
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

export async function measureRss(opts: {
  pid: number;
  ferry: Ferry;
  file: string;
  fileUserPath: string;
  size: number;
  hash: string;
  downloads: number;
  uploads: number;
  timeoutMs: number;
}): Promise<RssResult> {
  const { pid, ferry } = opts;
  // Signed URLs first, so the sampled window holds only the transfers.
  const urls: string[] = [];
  for (let i = 0; i < opts.downloads; i++) urls.push(await ferry.downloadUrl(opts.fileUserPath));

  const idle = await vmRssKiB(pid);
  if (idle === null) throw new Error(`the engine (pid ${pid}) is gone`);
  let peak = 0;
  let samples = 0;
  let sampling = true;
  let gone = false;
  const sampler = (async () => {
    while (sampling) {
      const kib = await vmRssKiB(pid);
      if (kib === null) {
        gone = true;
        return;
      }
      peak = Math.max(peak, kib);
      samples++;
      await new Promise((r) => setTimeout(r, 100));
    }
  })();

  log(`  ${opts.downloads} downloads and ${opts.uploads} uploads at once…`);
  const errors: string[] = [];
  const settled = await Promise.allSettled([
    ...urls.map((url) => curl.download(url, opts.timeoutMs).then(() => "download")),
    ...Array.from({ length: opts.uploads }, (_, i) => ferry.upload(opts.file, opts.size, opts.hash, `/rss-upload-${i}.bin`, opts.timeoutMs).then(() => "upload")),
  ]);
  sampling = false;
  await sampler;
  // A crashed engine's last samples would understate its peak: no number rather than a wrong one.
  if (gone) throw new Error(`the engine (pid ${pid}) exited during the load`);
  for (const s of settled) if (s.status === "rejected") errors.push((s.reason as Error).message);
  const ok = settled.filter((s): s is PromiseFulfilledResult<string> => s.status === "fulfilled").map((s) => s.value);
  return {
    peakMiB: peak / 1024,
    idleMiB: idle / 1024,
    samples,
    downloadsOk: ok.filter((v) => v === "download").length,
    uploadsOk: ok.filter((v) => v === "upload").length,
    errors: [...new Set(errors)].slice(0, 5),
  };
}
