import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { listingEntries } from "../../contract/files";
import type { Ferry } from "./ferry";
import { log } from "./lifecycle";
import { median } from "./series";

/**
 * `list` of a folder with many entries, as a browser sees it: the time from sending the command on
 * the socket to having its reply (columns: names, types, sizes, times) parsed. The files are
 * created straight on disk in the user's home (as rsync or a shell would), which is also what the
 * engine must cope with.
 */

export interface ListingResult {
  medianMs: number;
  samplesMs: number[];
  entries: number;
  /**
   * Not in the timed number: turning the reply's columns into one row object per entry, as the web's
   * file browser does (contract/files.ts, listingEntries), median of the same rounds.
   */
  rowsMedianMs: number;
}

async function createFiles(dir: string, count: number): Promise<void> {
  await mkdir(dir, { recursive: true });
  const width = String(count - 1).length;
  // A few writers at a time: fast enough, and never thousands of open descriptors.
  let next = 0;
  const writer = async () => {
    while (next < count) {
      const i = next++;
      await writeFile(path.join(dir, `file-${String(i).padStart(width, "0")}.txt`), "x");
    }
  };
  await Promise.all(Array.from({ length: 32 }, writer));
}

export async function measureListing(ferry: Ferry, homeDir: string, count: number, rounds: number): Promise<ListingResult> {
  const folder = `/list-${count}`;
  log(`  creating ${count} files…`);
  await createFiles(path.join(homeDir, folder), count);
  const samplesMs: number[] = [];
  const rowsMs: number[] = [];
  let entries = 0;
  // One untimed round first: the first listing also warms the engine's code paths and the dentry cache.
  for (let round = -1; round < rounds; round++) {
    const started = process.hrtime.bigint();
    const reply = await ferry.files.cmd("list", { groupId: 0, path: folder });
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    if (reply.code !== 200) throw new Error(`list answered ${reply.code} ${reply.message}`);
    const { names, types, sizes, times } = reply.data;
    entries = names.length;
    if (entries !== count) throw new Error(`list returned ${entries} entries, expected ${count}`);
    if (types.length !== entries || sizes.length !== entries || times.length !== entries) throw new Error("list returned columns of different lengths");
    const rowsStarted = process.hrtime.bigint();
    listingEntries(reply.data);
    const rows = Number(process.hrtime.bigint() - rowsStarted) / 1e6;
    if (round >= 0) {
      samplesMs.push(ms);
      rowsMs.push(rows);
      log(`  list round ${round + 1}/${rounds}: ${ms.toFixed(0)} ms (then ${rows.toFixed(0)} ms to rows)`);
    }
  }
  return { medianMs: median(samplesMs)!, samplesMs, entries, rowsMedianMs: median(rowsMs)! };
}
