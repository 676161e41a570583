import type { Clock } from "../clock";
import type { Db } from "../db/connect";
import { fail } from "../errors";
import type { Mail } from "./service";
import { ownerNoticeMail, shareLinkMail } from "./templates";

export interface ShareMailer {
  /** Whether the user has a sender: their `emailSenderType` names an account, and it is stored. */
  canSend(userId: number): Promise<boolean>;
  /** Fails with 4135 (`data.reason`: sender-none, server-account-not-set, own-account-not-set) when the user has no sender. */
  checkSender(userId: number): Promise<void>;
  sendShareLink(i: { ownerId: number; to: string[]; language: "zh" | "en"; url: string; password: string | null;
    fileNames: string[]; message: string; kind: "download" | "upload"; expiresAt: number | null }): Promise<void>;
  notifyOwner(i: { ownerId: number; language: "zh" | "en"; event: "download" | "upload"; url: string;
    fileNames: string[]; visitorAddress: string }): Promise<void>;
}

/** users.share_email_mode: 0 one mail to every recipient, 1 a separate mail to each (recipients do not see each other). */
export const SHARE_EMAIL_SEPARATE = 1;

/**
 * Share mails and owner notices (docs/mail.md). Mails go out through the account the owner's
 * `emailSenderType` names (1 the server's, 2 the owner's own); with type 0, or when that account is
 * not stored, every call fails with 4135 (EmailNotConfigured, `data.reason` says which).
 * `expiresAt` is unix seconds (null: never). Failures are FerryErrors: 1022 a bad recipient,
 * 1068 the SMTP server refused the account, 4133 a refused host, 4139 the server was not reached.
 */
export function createShareMailer(mail: Mail, db: Db, clock: Clock): ShareMailer {
  const owner = (id: number) =>
    db.kysely.selectFrom("users").select(["email", "share_email_mode"]).where("id", "=", id).executeTakeFirst();
  const sender = async (userId: number) => {
    const found = await mail.senderOf(userId);
    return found.account ?? fail("EmailNotConfigured", { reason: found.problem });
  };
  return {
    async canSend(userId) {
      return (await mail.senderOf(userId)).account !== null;
    },

    async checkSender(userId) {
      await sender(userId);
    },

    async sendShareLink(i) {
      const from = await sender(i.ownerId);
      const to = [...new Set(i.to.map((a) => a.trim()).filter(Boolean))];
      if (to.length === 0) return;
      const separate = (await owner(i.ownerId))?.share_email_mode === SHARE_EMAIL_SEPARATE;
      const batches = separate ? to.map((a) => [a]) : [to];
      for (const batch of batches) {
        await mail.send(from, shareLinkMail({ ...i, to: batch, fromName: from.fromName }));
      }
    },

    async notifyOwner(i) {
      const from = await sender(i.ownerId);
      const address = (await owner(i.ownerId))?.email;
      if (!address) return fail("EmailNotConfigured", { reason: "owner-has-no-email" });
      await mail.send(from, ownerNoticeMail({ ...i, to: address, at: Math.floor(clock.now() / 1000) }));
    },
  };
}
