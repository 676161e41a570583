import type { Clock } from "../clock";
import type { Db } from "../db/connect";
import { fail } from "../errors";
import type { Mail } from "./service";
import { ownerNoticeMail, shareLinkMail } from "./templates";

export interface ShareMailer {
  canSend(userId: number): Promise<boolean>; // the user's own SMTP account or the server's is set
  sendShareLink(i: { ownerId: number; to: string[]; language: "zh" | "en"; url: string; password: string | null;
    fileNames: string[]; message: string; kind: "download" | "upload"; expiresAt: number | null }): Promise<void>;
  notifyOwner(i: { ownerId: number; language: "zh" | "en"; event: "download" | "upload"; url: string;
    fileNames: string[]; visitorAddress: string }): Promise<void>;
}

/** users.share_email_mode: 0 one mail to every recipient, 1 a separate mail to each (recipients do not see each other). */
export const SHARE_EMAIL_SEPARATE = 1;

/**
 * Share mails and owner notices (docs/mail.md). Mails go out through the owner's own SMTP account
 * when set, else the server's; with neither, every call fails with 4135 (EmailNotConfigured).
 * `expiresAt` is unix seconds (null: never). Failures are FerryErrors: 1022 a bad recipient,
 * 1068 the SMTP server refused the account, 4133 a refused host, 4139 the server was not reached.
 */
export function createShareMailer(mail: Mail, db: Db, clock: Clock): ShareMailer {
  const owner = (id: number) =>
    db.kysely.selectFrom("users").select(["email", "share_email_mode"]).where("id", "=", id).executeTakeFirst();
  return {
    async canSend(userId) {
      return (await mail.senderFor(userId)) !== null;
    },

    async sendShareLink(i) {
      const from = await mail.senderFor(i.ownerId);
      if (!from) return fail("EmailNotConfigured");
      const to = [...new Set(i.to.map((a) => a.trim()).filter(Boolean))];
      if (to.length === 0) return;
      const separate = (await owner(i.ownerId))?.share_email_mode === SHARE_EMAIL_SEPARATE;
      const batches = separate ? to.map((a) => [a]) : [to];
      for (const batch of batches) {
        await mail.send(from, shareLinkMail({ ...i, to: batch, fromName: from.fromName }));
      }
    },

    async notifyOwner(i) {
      const from = await mail.senderFor(i.ownerId);
      if (!from) return fail("EmailNotConfigured");
      const address = (await owner(i.ownerId))?.email;
      if (!address) return fail("EmailNotConfigured", { reason: "owner-has-no-email" });
      await mail.send(from, ownerNoticeMail({ ...i, to: address, at: Math.floor(clock.now() / 1000) }));
    },
  };
}
