// An auto-clean run killed (SIGKILL) by tests/engine/autoclean.test.ts while a file is held in its
// run folder: run as
//   node --import tsx tests/support/autoclean-child.ts
// with FERRY_CHILD = JSON { root, recycle, now }. The recycle path lies on another file system, so
// the move is a copy; once the copy is written (the file held in .ferry-tmp/autoclean/<run id>/),
// it says "held" on stdout and waits, as a run does when the engine dies.
import { runClean } from "../../server/storage/autoclean/cleaner";
import { filesInUse } from "../../server/storage/in-use";

// Kept alive until the test kills it: a promise that never settles holds no handle of its own.
setInterval(() => undefined, 60_000);
const spec = JSON.parse(process.env.FERRY_CHILD ?? "{}") as { root: string; recycle: string; now: number };
await runClean({
  root: spec.root,
  policy: { by: "modified", age: "1y", recyclePath: spec.recycle },
  now: spec.now,
  inUse: filesInUse,
  afterCopy: async () => {
    process.stdout.write("held\n");
    await new Promise(() => undefined);
  },
});
