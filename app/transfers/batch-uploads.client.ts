import { ErrorCode, errorMessageKey, errorVars } from "../../contract/errors";
import { UPLOAD_BATCH, type UploadBatchResult } from "../../contract/files";
import { batchBody, batchLimits, BATCHES_IN_FLIGHT, fileOffsets, fitsBatch, nextBatchSize, retriesBatch, retryMayHelp, sentOf, type BatchEntry } from "./batch-plan";
import { emitTransferEvent } from "./events";
import { HashCancelled, type Hasher } from "./hasher.client";
import type { ManagerContext } from "./manager.client";
import type { TransferStore } from "./store";
import { TransferStatus, type TransferItem } from "./types";

/**
 * Small files of one pick or drop sent many per request (`POST /uploads/batch`; docs/web.md,
 * "Small files in batches"). Each pick is a group: one summary row in the panel (progress of all
 * its bytes, speed, time left, how many landed and how many were refused) above one row per file.
 * Files are grouped into batches (batch-plan.ts), each hashed in the worker first when the engine
 * checks hashes; up to BATCHES_IN_FLIGHT batches run at once, each one of the sign-in's
 * `parallelUploads`. The engine answers per file: placed, or refused with its own code, shown on
 * that file's row in the page's language.
 *
 * A batch broken off by the network, or answered with a 5xx (a proxy's 502/503/504, an engine's
 * server error), is sent again after a back-off, a bounded number of times (`retriesBatch`); the
 * files the engine had already placed (it places each as soon as its last byte is in) are found
 * first (`exists`, then `attributes`: same size, and the same BLAKE3 when hashed) and not sent
 * again. The user's Retry of files whose batch failed that way asks the same first.
 */

/** What a batch needs of the manager's context (manager.client.ts); `partMB` and `hashCheck` follow the engine's answers. */
export type BatchContext = Pick<ManagerContext, "connection" | "partMB" | "hashCheck">;

export interface BatchTimings {
  /** Back-off of the automatic retries after a network drop or a 5xx (then the files fail and offer retry). */
  retryDelays: readonly number[];
  /** Wait before asking again when the engine's places are all taken (4210). */
  busyRetryMs: number;
  /** Waits before asking again for the hash of a landed file the engine has not recorded yet (after a drop). */
  recordWaitsMs: readonly number[];
}

export interface BatchFileInput {
  file: File;
  groupId: number;
  path: string;
  overwrite: boolean;
}

interface Member extends BatchFileInput {
  id: string;
  group: Group;
  hash: Promise<string> | null;
  state: "queued" | "sending" | "finished";
  sent: number;
  /** Failed with its whole batch (the network, a 5xx): it may have landed all the same, which a Retry asks first. */
  unsure: boolean;
}

interface Group {
  id: string;
  members: Member[];
  queue: Member[];
  abort: AbortController;
  requests: Set<XMLHttpRequest>;
  sent: number;
  total: number;
  uploaded: number;
  failed: number;
}

/** The file server's answer was not the batch's reply: refused as a whole (its envelope's code), or the network. */
class BatchError extends Error {
  constructor(
    readonly status: number,
    readonly code: number | null,
    readonly data: unknown,
  ) {
    super(`batch failed (${status}${code === null ? "" : `, ${code}`})`);
  }
}
const ABORTED = new BatchError(-1, null, null);

/** Sends one batch; resolves with the engine's answer per file. */
function send(url: string, token: string, body: Blob, lang: string, requests: Set<XMLHttpRequest>, progress: (loaded: number) => void): Promise<UploadBatchResult[]> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    requests.add(xhr);
    xhr.open("POST", url);
    xhr.setRequestHeader("Authorization", `Bearer ${token}`);
    xhr.setRequestHeader("Content-Type", "application/octet-stream");
    if (lang) xhr.setRequestHeader("Accept-Language", lang);
    xhr.upload.onprogress = (event) => progress(event.loaded);
    xhr.onload = () => {
      requests.delete(xhr);
      let envelope: { code?: unknown; data?: unknown } = {};
      try {
        envelope = JSON.parse(xhr.responseText) as typeof envelope;
      } catch {
        // Not the engine's envelope (a proxy's page).
      }
      const files = (envelope.data as { files?: unknown } | undefined)?.files;
      if (xhr.status === 200 && envelope.code === 200 && Array.isArray(files)) return resolve(files as UploadBatchResult[]);
      const code = typeof envelope.code === "number" ? envelope.code : xhr.status >= 500 ? ErrorCode.ServerError : null;
      reject(new BatchError(xhr.status, code, envelope.data));
    };
    xhr.onerror = () => {
      requests.delete(xhr);
      reject(new BatchError(0, null, null));
    };
    xhr.onabort = () => {
      requests.delete(xhr);
      reject(ABORTED);
    };
    xhr.send(body);
  });
}

let nextId = 0;
const newId = () => (typeof crypto.randomUUID === "function" ? crypto.randomUUID() : `batch-${Date.now()}-${nextId++}`);
const nowSeconds = () => Math.floor(Date.now() / 1000);
const nameOf = (path: string) => path.slice(path.lastIndexOf("/") + 1);
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class BatchUploads {
  private readonly groups: Group[] = [];
  private readonly members = new Map<string, Member>();
  private inFlight = 0;

  constructor(
    private readonly store: TransferStore,
    private readonly hasher: Hasher,
    /** The manager's queue moves on (a place came free). */
    private readonly changed: () => void,
    private readonly timings: BatchTimings,
  ) {}

  /** Whether a file goes by batch: small enough for one (with the part size's cap on the body). */
  static fits(file: File, path: string, partMB: number): boolean {
    return fitsBatch({ groupId: 0, path, size: file.size, overwrite: false }, batchLimits(partMB), true);
  }

  owns(id: string): boolean {
    return this.members.has(id) || this.groups.some((group) => group.id === id);
  }

  running(): number {
    return this.inFlight;
  }

  /** One pick's small files as one group: a summary row, one row per file, the hashes started. `folder`: the pick's top folder, if one. */
  add(inputs: BatchFileInput[], folder: string | null, context: BatchContext) {
    const group: Group = { id: newId(), members: [], queue: [], abort: new AbortController(), requests: new Set(), sent: 0, total: 0, uploaded: 0, failed: 0 };
    const rows: TransferItem[] = [];
    const createTime = nowSeconds();
    for (const input of inputs) {
      const member: Member = { ...input, id: newId(), group, hash: null, state: "queued", sent: 0, unsure: false };
      group.members.push(member);
      group.queue.push(member);
      group.total += input.file.size;
      this.members.set(member.id, member);
      rows.push(this.row(member.id, nameOf(input.path), input.file.size, createTime, { queued: true, inBatch: group.id }));
    }
    this.startHashes(group.members, context);
    this.groups.push(group);
    this.store.addMany([this.row(group.id, folder ?? "", group.total, createTime, { batch: { files: inputs.length, uploaded: 0, failed: 0, retryable: 0 } }), ...rows]);
  }

  /** Starts batches in up to `places` free places of the sign-in's parallel uploads; returns how many started. */
  pump(places: number, context: BatchContext): number {
    let started = 0;
    while (started < places && this.inFlight < BATCHES_IN_FLIGHT) {
      const group = this.groups.find((g) => g.queue.length > 0);
      if (!group) break;
      const limits = batchLimits(context.partMB);
      const entries = group.queue.map((m) => this.entryOf(m));
      const count = nextBatchSize(entries, limits, context.hashCheck, BATCHES_IN_FLIGHT);
      const batch = group.queue.splice(0, count);
      for (const member of batch) member.state = "sending";
      this.store.updateMany(new Map(batch.map((m) => [m.id, { queued: false }])));
      this.inFlight += 1;
      started += 1;
      void this.run(group, batch, context).finally(() => {
        this.inFlight -= 1;
        this.changed();
      });
    }
    return started;
  }

  /** Cancels a queued file (a file whose batch is on its way may still land), or a whole group (what has not landed stops; what landed stays). */
  cancel(id: string) {
    const group = this.groups.find((g) => g.id === id);
    if (group) {
      group.abort.abort();
      for (const xhr of [...group.requests]) xhr.abort();
      const open = group.members.filter((m) => m.state !== "finished");
      for (const member of open) this.drop(member);
      group.queue.length = 0;
      this.store.removeMany(open.map((m) => m.id));
      this.summarize(group);
      return;
    }
    const member = this.members.get(id);
    if (!member || member.state === "finished") return;
    this.drop(member);
    const at = member.group.queue.indexOf(member);
    if (at >= 0) member.group.queue.splice(at, 1);
    this.store.remove(id);
    this.summarize(member.group);
  }

  /**
   * Sends a refused file (or every file of a group a Retry may help) again. Files whose whole batch
   * failed (the network, a 5xx) may have landed all the same: the engine is asked first, and those
   * it placed are shown uploaded instead of being sent twice.
   */
  retry(id: string, context: BatchContext): Promise<void> {
    const group = this.groups.find((g) => g.id === id);
    const members = group ? group.members.filter((m) => this.store.get(m.id)?.status === TransferStatus.UploadFailed && this.retryable(m.id)) : [this.members.get(id)].filter((m): m is Member => !!m && this.store.get(m.id)?.status === TransferStatus.UploadFailed);
    if (members.length === 0) return Promise.resolve();
    const owner = members[0]!.group;
    if (owner.abort.signal.aborted) owner.abort = new AbortController();
    for (const member of members) {
      // On its way again (not in the queue while the engine is asked what landed).
      member.state = "sending";
      // Its bytes were counted when its batch ended: the summary's progress starts them afresh.
      owner.sent -= member.sent;
      member.sent = 0;
      owner.failed -= 1;
    }
    this.startHashes(members, context);
    this.store.updateMany(new Map(members.map((m) => [m.id, { status: TransferStatus.Uploading, errorMsgKey: null, errorVars: undefined, queued: true, currentSize: 0 }])));
    this.summarize(owner);
    const unsure = members.filter((m) => m.unsure);
    return (unsure.length > 0 ? this.landed(unsure, context) : Promise.resolve(new Map<Member, string>())).then((landed) => {
      const placed = members.filter((m) => landed.has(m));
      this.answer(
        placed,
        placed.map((m) => ({ path: m.path, ok: true as const, size: m.file.size, hash: landed.get(m) ?? "" })),
      );
      this.requeue(owner, members.filter((m) => !landed.has(m)));
      this.summarize(owner);
      this.changed();
    });
  }

  /** Removes a finished file's row, or a finished group with all its rows. */
  clear(id: string) {
    const group = this.groups.find((g) => g.id === id);
    if (group) {
      if (group.members.some((m) => m.state !== "finished")) return;
      for (const member of group.members) this.members.delete(member.id);
      this.groups.splice(this.groups.indexOf(group), 1);
      this.store.removeMany([group.id, ...group.members.map((m) => m.id)]);
      return;
    }
    const member = this.members.get(id);
    if (!member || member.state !== "finished") return;
    // The summary counts the files still listed: without this one it said "5 of 4 uploaded", or offered Retry for a refusal no longer there.
    const status = this.store.get(id)?.status;
    if (status === TransferStatus.Uploaded) member.group.uploaded -= 1;
    else if (status === TransferStatus.UploadFailed) member.group.failed -= 1;
    this.drop(member);
    this.store.remove(id);
    this.summarize(member.group);
  }

  /** A refused file the summary's Retry sends again: not one the engine would refuse again as it stands (retryMayHelp). */
  private retryable(id: string) {
    const item = this.store.get(id);
    return item?.status === TransferStatus.UploadFailed && retryMayHelp(item.errorMsgKey);
  }

  private drop(member: Member) {
    member.state = "finished";
    member.group.total -= member.file.size;
    member.group.sent -= member.sent;
    member.group.members = member.group.members.filter((m) => m !== member);
    this.members.delete(member.id);
  }

  private startHashes(members: Member[], context: BatchContext) {
    if (!context.hashCheck) return;
    const group = members[0]?.group;
    for (const member of members) {
      member.hash = this.hasher.hash(member.file, group?.abort.signal);
      member.hash.catch(() => undefined);
    }
  }

  private entryOf(member: Member): BatchEntry {
    return { groupId: member.groupId, path: member.path, size: member.file.size, overwrite: member.overwrite };
  }

  /** One batch: hashes, the request, its answer per file; a network failure is retried after a back-off, without the files that landed. */
  private async run(group: Group, batch: Member[], context: BatchContext) {
    let pending = batch;
    for (let attempt = 0; pending.length > 0; attempt += 1) {
      pending = pending.filter((m) => m.state === "sending");
      if (pending.length === 0 || group.abort.signal.aborted) return;
      let hashes: (string | null)[];
      try {
        hashes = await Promise.all(pending.map((m) => m.hash ?? null));
      } catch (error) {
        if (error instanceof HashCancelled || group.abort.signal.aborted) return;
        this.finish(pending, () => ({ errorMsgKey: "transfers.error.read-failed" }));
        return;
      }
      // A file cancelled while the hashes were read stays out.
      const entries = pending.flatMap((m, i) => (m.state === "sending" ? [{ ...this.entryOf(m), ...(hashes[i] ? { hash: hashes[i]! } : {}) }] : []));
      pending = pending.filter((m) => m.state === "sending");
      if (pending.length === 0) return;
      const { body, headerBytes } = batchBody(entries, pending.map((m) => m.file));
      const offsets = fileOffsets(pending.map((m) => m.file.size), headerBytes);
      const progress = (loaded: number) => {
        const checking = new Map<string, Partial<TransferItem>>();
        pending.forEach((member, i) => {
          if (member.state !== "sending") return;
          const sent = sentOf(offsets[i]!, member.file.size, loaded);
          if (sent === member.sent) return;
          group.sent += sent - member.sent;
          member.sent = sent;
          if (sent === member.file.size) checking.set(member.id, { status: TransferStatus.ServerChecking, currentSize: sent });
          else this.store.progress(member.id, sent);
        });
        if (checking.size > 0) this.store.updateMany(checking);
        this.store.progress(group.id, group.sent);
      };
      try {
        const results = await send(context.connection.href(UPLOAD_BATCH.path), context.connection.token, body, document.documentElement.lang, group.requests, progress);
        this.answer(pending, results);
        return;
      } catch (error) {
        if (error === ABORTED || group.abort.signal.aborted) return;
        const failure = error instanceof BatchError ? error : new BatchError(0, null, null);
        this.rewind(group, pending);
        if (failure.code === ErrorCode.UploadsBusy) {
          // Another page of this sign-in holds the engine's places: ask again in a moment.
          await wait(this.timings.busyRetryMs);
          attempt -= 1;
          continue;
        }
        if (failure.code === ErrorCode.UploadPartTooLarge && Number(errorVars(failure.data)?.limit) > 0) {
          // The administrator lowered the part size since the page loaded: the files go back to the queue, batched anew.
          context.partMB = Math.max(1, Math.floor(Number(errorVars(failure.data)?.limit) / (1024 * 1024)));
          // A file that no longer fits a batch alone fails with that refusal (sent again it would be refused again, without end).
          const limits = batchLimits(context.partMB);
          const alone = pending.filter((m) => !fitsBatch(this.entryOf(m), limits, context.hashCheck));
          this.finish(alone, () => ({ errorMsgKey: errorMessageKey(failure.code!), errorVars: errorVars(failure.data) }));
          this.requeue(group, pending.filter((m) => !alone.includes(m)));
          return;
        }
        if (!retriesBatch(failure.status, failure.code)) {
          // Refused as a whole (the token, a header the engine would not take, a full disk): every file says why.
          this.finish(pending, () => ({ errorMsgKey: errorMessageKey(failure.code!), errorVars: errorVars(failure.data) }));
          return;
        }
        if (attempt >= this.timings.retryDelays.length) {
          // The network or the server still failing: some files may have landed, which a Retry asks first.
          for (const member of pending) member.unsure = true;
          this.finish(pending, () => (failure.code === null || failure.status === 0 ? { errorMsgKey: "transfers.error.network" } : { errorMsgKey: errorMessageKey(failure.code), errorVars: errorVars(failure.data) }));
          return;
        }
        await wait(this.timings.retryDelays[attempt]!);
        if (group.abort.signal.aborted) return;
        // Files placed before the connection broke (or the server failed) are not sent again.
        const landed = await this.landed(pending, context);
        this.answer(
          pending.filter((m) => landed.has(m)),
          pending.filter((m) => landed.has(m)).map((m) => ({ path: m.path, ok: true as const, size: m.file.size, hash: landed.get(m) ?? "" })),
        );
        pending = pending.filter((m) => !landed.has(m));
      }
    }
  }

  /** Which of `members` the engine placed (their path holds a file of their size, and their BLAKE3 when hashed). */
  private async landed(members: Member[], context: BatchContext): Promise<Map<Member, string>> {
    const found = new Map<Member, string>();
    const byFolder = new Map<string, Member[]>();
    for (const member of members) {
      const key = `${member.groupId}:${member.path.slice(0, member.path.lastIndexOf("/")) || "/"}`;
      byFolder.set(key, [...(byFolder.get(key) ?? []), member]);
    }
    try {
      for (const [key, list] of byFolder) {
        const [group, folder] = [Number(key.slice(0, key.indexOf(":"))), key.slice(key.indexOf(":") + 1)];
        const existing = new Set((await context.connection.cmd("exists", { groupId: group, target: folder, names: list.map((m) => nameOf(m.path)) })).existing);
        for (const member of list.filter((m) => existing.has(nameOf(m.path)))) {
          const hash = member.hash ? await member.hash : null;
          let attributes = await context.connection.cmd("attributes", { groupId: member.groupId, paths: [member.path] });
          // The engine records a batch's hashes after each group of files it placed: a file of our size
          // without one yet may be ours, still being recorded after the connection broke. Asked again
          // a few times before it is taken for someone else's (sent again, it would answer "name taken").
          for (const ms of this.timings.recordWaitsMs) {
            if (!hash || attributes.hash !== null || attributes.file_size !== member.file.size) break;
            await wait(ms);
            attributes = await context.connection.cmd("attributes", { groupId: member.groupId, paths: [member.path] });
          }
          if (attributes.file_size !== member.file.size) continue;
          // Without a hash of ours, an overwrite cannot be told from the file it replaces: it is sent again.
          if (hash ? attributes.hash === hash : !member.overwrite) found.set(member, attributes.hash ?? "");
        }
      }
    } catch {
      // The socket is down too, or no List permission: everything is sent again (a placed file answers 4158).
    }
    return found;
  }

  /** The engine's answer, file by file. */
  private answer(members: Member[], results: UploadBatchResult[]) {
    const patches = new Map<string, Partial<TransferItem>>();
    members.forEach((member, i) => {
      if (member.state !== "sending") return;
      const result = results[i];
      member.state = "finished";
      member.unsure = false;
      member.group.sent += member.file.size - member.sent;
      member.sent = member.file.size;
      if (result?.ok) {
        member.group.uploaded += 1;
        patches.set(member.id, { status: TransferStatus.Uploaded, currentSize: result.size, totalSize: result.size });
        emitTransferEvent({ type: "upload-committed", groupId: member.groupId, path: result.path });
      } else {
        member.group.failed += 1;
        patches.set(member.id, {
          status: TransferStatus.UploadFailed,
          queued: false,
          errorMsgKey: result ? errorMessageKey(result.code) : "transfers.error.network",
          errorVars: result ? errorVars(result.data) : undefined,
        });
      }
    });
    this.store.updateMany(patches);
    const group = members[0]?.group;
    if (group) this.summarize(group);
  }

  private finish(members: Member[], failure: () => { errorMsgKey: string; errorVars?: Record<string, string | number> }) {
    const patches = new Map<string, Partial<TransferItem>>();
    for (const member of members) {
      if (member.state !== "sending") continue;
      member.state = "finished";
      member.group.failed += 1;
      patches.set(member.id, { status: TransferStatus.UploadFailed, queued: false, errorVars: undefined, ...failure() });
    }
    this.store.updateMany(patches);
    const group = members[0]?.group;
    if (group) this.summarize(group);
  }

  /** The bytes of a broken-off request count no more. */
  private rewind(group: Group, members: Member[]) {
    const patches = new Map<string, Partial<TransferItem>>();
    for (const member of members) {
      if (member.state !== "sending") continue;
      group.sent -= member.sent;
      member.sent = 0;
      patches.set(member.id, { status: TransferStatus.Uploading, currentSize: 0 });
    }
    this.store.updateMany(patches);
    this.store.progress(group.id, group.sent);
  }

  private requeue(group: Group, members: Member[]) {
    const back = members.filter((m) => m.state === "sending");
    for (const member of back) member.state = "queued";
    group.queue.unshift(...back);
    this.store.updateMany(new Map(back.map((m) => [m.id, { queued: true }])));
  }

  /** The summary row: counts, and Uploaded once no file of the group is left to send. */
  private summarize(group: Group) {
    const open = group.members.some((m) => m.state !== "finished");
    const files = group.members.length;
    if (files === 0 && !open) {
      const at = this.groups.indexOf(group);
      if (at >= 0) this.groups.splice(at, 1);
      this.store.remove(group.id);
      return;
    }
    const retryable = group.members.filter((m) => m.state === "finished" && this.retryable(m.id)).length;
    this.store.update(group.id, {
      status: open ? TransferStatus.Uploading : TransferStatus.Uploaded,
      totalSize: group.total,
      currentSize: open ? group.sent : group.total,
      batch: { files, uploaded: group.uploaded, failed: group.failed, retryable },
    });
  }

  private row(id: string, name: string, size: number, createTime: number, patch: Partial<TransferItem>): TransferItem {
    return {
      id,
      kind: "upload",
      name,
      status: TransferStatus.Uploading,
      currentSize: 0,
      totalSize: size,
      createTime,
      errorMsgKey: null,
      speed: 0,
      queued: false,
      paused: false,
      needsFile: false,
      ...patch,
    };
  }
}
