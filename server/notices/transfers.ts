import type { Clock } from "../clock";
import type { Db } from "../db/connect";
import { createSettings } from "../settings/service";
import type { Mail } from "../mail/service";
import { adminTransferMail, adminTransferNotice, type TransferSummary } from "../mail/templates";
import { NOTICE_CHANNEL, type Notices } from "./service";

/** A finished transfer of a signed-in user: one committed upload, or one download (a file or a zip). */
export interface Transfer {
  kind: "upload" | "download";
  /** The space: 0 the personal one, else the group's id. */
  groupId: number;
  /** What was transferred, as the user sees it: the uploaded file's path, or the downloaded paths. */
  paths: string[];
  /** A download of folders or several items served as one zip. */
  zip?: boolean;
}

/** Names listed per kind in a notice or mail; the rest are counted. */
export const TRANSFER_NAMES_LISTED = 20;

interface Names {
  listed: string[];
  more: number;
}

interface Pending {
  uploads: Names;
  downloads: Names;
  uploadCount: number;
  downloadCount: number;
  timer: NodeJS.Timeout;
}

type Log = { error(obj: object, msg: string): void };

/**
 * The administrator's transfer notices (docs/mail.md, "Transfer notices to the administrator"):
 * the finished uploads and downloads of a user whose `notifyAdmin` is on, gathered per user over
 * `windowMs` from the first one, become one notice in the administrator's inbox (notices channel 2,
 * read with GET /api/notice/list) and, when the server has a mail account and the administrator an
 * e-mail address, one mail through the server's account. Both are written in Chinese and English.
 * The General setting `eventNotifications` gates both ends: off, nothing is gathered, and what was
 * gathered before it was turned off is dropped when its window ends.
 * Kept in memory per engine process; `stop()` sends what is gathered.
 */
export function createTransferNotices(deps: { db: Db; clock: Clock; notices: Notices; mail: Mail; windowMs: number; log?: Log }) {
  const k = deps.db.kysely;
  const pending = new Map<number, Pending>();
  const sending = new Set<Promise<void>>();
  const recording = new Set<Promise<void>>();

  async function send(userId: number, p: Pending): Promise<void> {
    // Switched off while the window ran: what was gathered is dropped, not sent.
    if (!(await createSettings(deps.db).get("general")).eventNotifications) return;
    const user = await k.selectFrom("users").select(["account", "fullname"]).where("id", "=", userId).executeTakeFirst();
    const admin = await k.selectFrom("users").select(["id", "email"]).where("role", "=", "admin").executeTakeFirst();
    if (!user || !admin) return;
    const summary: TransferSummary = {
      account: user.account,
      fullname: user.fullname ?? "",
      uploads: p.uploads.listed,
      downloads: p.downloads.listed,
      uploadsMore: p.uploads.more,
      downloadsMore: p.downloads.more,
      uploadCount: p.uploadCount,
      downloadCount: p.downloadCount,
      at: Math.floor(deps.clock.now() / 1000),
    };
    const notice = adminTransferNotice(summary);
    await deps.notices.send({ title: notice.subject, content: notice.text, receivers: [admin.id], channel: NOTICE_CHANNEL.transfer });
    if (!admin.email) return;
    const from = await deps.mail.account({ kind: "server" });
    if (!from) return;
    await deps.mail.send(from, adminTransferMail({ ...summary, to: admin.email }));
  }

  function flushUser(userId: number): Promise<void> {
    const p = pending.get(userId);
    if (!p) return Promise.resolve();
    pending.delete(userId);
    clearTimeout(p.timer);
    const job = send(userId, p)
      .catch((err: unknown) => deps.log?.error({ err, userId }, "transfer notice failed"))
      .finally(() => sending.delete(job));
    sending.add(job);
    return job;
  }

  const add = (names: Names, more: string[]) => {
    for (const name of more) {
      if (names.listed.includes(name)) continue;
      if (names.listed.length < TRANSFER_NAMES_LISTED) names.listed.push(name);
      else names.more += 1;
    }
  };

  const inGroup = async (groupId: number, names: string[]) => {
    if (!groupId) return names;
    const group = await k.selectFrom("user_groups").select("name").where("id", "=", groupId).executeTakeFirst();
    return names.map((n) => `[${group?.name ?? groupId}] ${n}`);
  };

  async function gather(userId: number, transfer: Transfer): Promise<void> {
    try {
      const row = await k.selectFrom("users").select("notify_admin").where("id", "=", userId).where("role", "=", "user").executeTakeFirst();
      if (!row?.notify_admin) return;
      // The General settings' event notifications switch: off, no transfer is gathered for the administrator.
      if (!(await createSettings(deps.db).get("general")).eventNotifications) return;
      // A zip is one download, listed as its selection.
      const names = await inGroup(transfer.groupId, transfer.zip ? [`${transfer.paths.join(", ")} (zip)`] : transfer.paths);
      // From here on no await: the entry cannot be sent meanwhile.
      let p = pending.get(userId);
      if (!p) {
        const timer = setTimeout(() => void flushUser(userId), deps.windowMs);
        p = { uploads: { listed: [], more: 0 }, downloads: { listed: [], more: 0 }, uploadCount: 0, downloadCount: 0, timer };
        pending.set(userId, p);
      }
      if (transfer.kind === "upload") {
        p.uploadCount += 1;
        add(p.uploads, names);
      } else {
        p.downloadCount += 1;
        add(p.downloads, names);
      }
    } catch (err) {
      deps.log?.error({ err, userId }, "transfer notice failed");
    }
  }

  const flush = async () => {
    await Promise.all([...recording]);
    await Promise.all([...pending.keys()].map(flushUser));
    await Promise.all([...sending]);
  };

  return {
    /** A finished transfer; never throws (the transfer stands whatever the notice does). */
    record(userId: number, transfer: Transfer): Promise<void> {
      const job = gather(userId, transfer).finally(() => recording.delete(job));
      recording.add(job);
      return job;
    },
    /** What is gathered for `userId` and not yet sent (null: nothing). */
    gathered(userId: number): { uploadCount: number; downloadCount: number } | null {
      const p = pending.get(userId);
      return p ? { uploadCount: p.uploadCount, downloadCount: p.downloadCount } : null;
    },
    /** Sends every gathered notice now, after the transfers being recorded. */
    flush,
    /** Engine stop: what is gathered is sent, not lost. */
    stop: flush,
  };
}

export type TransferNotices = ReturnType<typeof createTransferNotices>;
