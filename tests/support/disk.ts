import { lstat, readdir } from "node:fs/promises";
import path from "node:path";

/**
 * Every entry below `dir` as "relative/path type size" lines, sorted: compare two snapshots to show
 * that a refused command changed nothing on disk. Links are reported as links, never followed.
 */
export async function snapshot(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (rel: string) => {
    for (const name of await readdir(path.join(dir, rel))) {
      const childRel = path.join(rel, name);
      const info = await lstat(path.join(dir, childRel));
      const type = info.isSymbolicLink() ? "link" : info.isDirectory() ? "dir" : "file";
      out.push(`${childRel} ${type} ${type === "file" ? info.size : 0}`);
      if (type === "dir") await walk(childRel);
    }
  };
  await walk("");
  return out.sort();
}
