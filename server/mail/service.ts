import { readFileSync } from "node:fs";
import type { ClientTrust } from "../tls/trust";
import { rootCertificates } from "node:tls";
import { createCredentialCodec } from "../../contract/credentials";
import type { ErrorName } from "../../contract/errors";
import {
  EMAIL_SENDER,
  SMTP_DEFAULTS,
  type SmtpSettings,
  type SmtpSettingsBody,
  type SmtpSettingsInfo,
  smtpSettingsSchema,
} from "../../contract/mail";
import type { Clock } from "../clock";
import type { Config } from "../config";
import { type Db, isUniqueViolation } from "../db/connect";
import { FerryError, fail } from "../errors";
import type { Settings } from "../settings/service";
import { checkSmtpHostOnSave } from "./address";
import { createSecretBox, loadEngineSecret, type SecretBox } from "./secret";
import { testMail } from "./admin-mails";
import type { MailLanguage } from "./templates";
import { deliver, deliverEach, deliverTest, type OutgoingMail, smtpAuthenticates } from "./transport";

/** Why a user has no sender: the reason carried by 4135 (EmailNotConfigured). */
export type SenderProblem = "sender-none" | "server-account-not-set" | "own-account-not-set";

/** Whose SMTP account: the server's (admin "Email settings") or one user's own. */
export type MailOwner = { kind: "server" } | { kind: "user"; userId: number };

/** A stored account with its password decrypted, ready to send with. Never leaves the engine. */
export interface MailAccount {
  owner: MailOwner;
  fromName: string;
  provider: number;
  account: string;
  password: string;
  host: string;
  port: number;
  encryption: number;
}

const ownerKey = (owner: MailOwner) => (owner.kind === "server" ? "server" : `user:${owner.userId}`);

/** The field a rule belongs to decides the code: 4131 account, 4132 password, 4133 host, 4134 port, 400 the rest. */
const FIELD_ERRORS: Partial<Record<keyof SmtpSettings, ErrorName>> = {
  emailAccount: "InvalidEmailAccount",
  emailPassword: "InvalidEmailPassword",
  emailSmtpHost: "InvalidSmtpHost",
  emailSmtpPort: "InvalidSmtpPort",
};

function validate(values: SmtpSettings): SmtpSettings {
  const result = smtpSettingsSchema.safeParse(values);
  if (result.success) return result.data;
  const first = result.error.issues[0]!;
  const field = String(first.path[0]) as keyof SmtpSettings;
  const issues = result.error.issues.map((i) => ({ path: i.path.join("."), message: i.message }));
  throw new FerryError(FIELD_ERRORS[field] ?? "ParameterError", { field, issues });
}

export interface MailDeps {
  db: Db;
  config: Config;
  clock: Clock;
  settings: Settings;
  /** Client TLS: the authorities SMTP trusts besides the system's roots (server/tls/trust.ts). */
  trust?: ClientTrust;
}

/**
 * SMTP sender accounts (docs/mail.md): the server's and each user's, stored with the password
 * encrypted (AES-256-GCM, key outside the database), and sending through them.
 */
export function createMail({ db, config, clock, settings, trust }: MailDeps) {
  const k = db.kysely;
  // The key is read (or created) on first use, not when the services open.
  let lazyBox: SecretBox | null = null;
  const box = () => (lazyBox ??= createSecretBox(loadEngineSecret(config.dataDir, config.secret), "smtp-password"));
  const codec = createCredentialCodec(config.hashidSalt);
  // Read at each connection, so an upload of client TLS authorities applies without a restart.
  const envCa = trust ? undefined : config.smtpCa ? [...rootCertificates, readFileSync(config.smtpCa, "utf8")] : undefined;
  const smtpCa = () => (trust ? trust.smtpCa() : envCa);

  const rowOf = (owner: MailOwner) => k.selectFrom("smtp_accounts").selectAll().where("owner", "=", ownerKey(owner)).executeTakeFirst();

  async function info(owner: MailOwner): Promise<SmtpSettingsInfo> {
    const row = await rowOf(owner);
    if (!row) return { ...SMTP_DEFAULTS, emailPassword: "", hasPassword: false, configured: false };
    return {
      emailFromName: row.from_name,
      emailType: row.provider,
      emailAccount: row.account,
      emailPassword: "",
      emailSmtpHost: row.host,
      emailSmtpPort: row.port,
      emailEncryptType: row.encryption,
      hasPassword: row.password_enc !== "",
      configured: true,
    };
  }

  async function store(owner: MailOwner, v: SmtpSettings, passwordEnc: string) {
    const key = ownerKey(owner);
    const values = {
      from_name: v.emailFromName,
      provider: v.emailType,
      account: v.emailAccount,
      password_enc: passwordEnc,
      host: v.emailSmtpHost,
      port: v.emailSmtpPort,
      encryption: v.emailEncryptType,
      updated_at: clock.now(),
    };
    const updated = await k.updateTable("smtp_accounts").set(values).where("owner", "=", key).executeTakeFirst();
    if (Number(updated.numUpdatedRows) > 0) return;
    try {
      await k
        .insertInto("smtp_accounts")
        .values({ owner: key, user_id: owner.kind === "user" ? owner.userId : null, ...values })
        .execute();
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      await k.updateTable("smtp_accounts").set(values).where("owner", "=", key).execute();
    }
  }

  /**
   * Whether an account's SMTP host may be on a loopback, private or link-local address (docs/mail.md,
   * "Outbound address policy"): the server's account is set by the administrator, who runs the
   * network (a relay on localhost or the LAN is the usual case); a user's own account may only with
   * FERRY_SMTP_ALLOW_PRIVATE, so a user cannot point the engine at its own network.
   */
  function mayReachPrivate(owner: MailOwner): boolean {
    return owner.kind === "server" || config.smtpAllowPrivate;
  }

  /**
   * Validates and stores settings whose password is credential-encoded (the wire form). An empty
   * password keeps the stored one; with none stored it is refused with 4132.
   */
  async function update(owner: MailOwner, body: SmtpSettingsBody): Promise<SmtpSettingsInfo> {
    let password = "";
    if (body.emailPassword !== "") {
      const decoded = codec.decode(body.emailPassword);
      if (decoded === null) fail("InvalidEmailPassword", { field: "emailPassword", reason: "encoding" });
      password = decoded!;
    }
    const values = validate({ ...body, emailPassword: password });
    const existing = await rowOf(owner);
    let passwordEnc: string;
    if (values.emailPassword !== "") passwordEnc = box().seal(values.emailPassword, ownerKey(owner));
    else if (existing?.password_enc) passwordEnc = existing.password_enc;
    else return fail("InvalidEmailPassword", { field: "emailPassword", reason: "required" });
    await checkSmtpHostOnSave(values.emailSmtpHost, mayReachPrivate(owner));
    await store(owner, values, passwordEnc);
    // /api/user/info and /api/service/info carry emailAccount, which the web reads to know a sender exists.
    if (owner.kind === "user") await k.updateTable("users").set({ email_account: values.emailAccount }).where("id", "=", owner.userId).execute();
    else await settings.update("transfer", { emailAccount: values.emailAccount });
    return info(owner);
  }

  /** The stored account with its password, or null when none is stored (or it cannot be decrypted under this key). */
  async function account(owner: MailOwner): Promise<MailAccount | null> {
    const row = await rowOf(owner);
    if (!row) return null;
    const password = box().open(row.password_enc, ownerKey(owner));
    if (password === null) return null;
    return {
      owner,
      fromName: row.from_name,
      provider: row.provider,
      account: row.account,
      password,
      host: row.host,
      port: row.port,
      encryption: row.encryption,
    };
  }

  return {
    info,
    update,
    /** PATCH of the server account: the given fields over the stored ones (or the defaults), then the same rules. */
    async patchServer(patch: Partial<SmtpSettingsBody>): Promise<SmtpSettingsInfo> {
      const { hasPassword: _h, configured: _c, ...current } = await info({ kind: "server" });
      return update({ kind: "server" }, { ...current, ...patch, emailPassword: patch.emailPassword ?? "" });
    },
    account,
    /**
     * The account a user's mails (share mails, owner notices) go out through, as the administrator's
     * `emailSenderType` of the user says: 0 none, 1 the server's account, 2 the user's own (no
     * fallback to the server's). `problem` says why there is none: `sender-none` (type 0),
     * `server-account-not-set` (type 1), `own-account-not-set` (type 2).
     */
    async senderOf(userId: number): Promise<{ account: MailAccount } | { account: null; problem: SenderProblem }> {
      const row = await k.selectFrom("users").select("email_sender_type").where("id", "=", userId).executeTakeFirst();
      const type = row?.email_sender_type ?? EMAIL_SENDER.none;
      if (type === EMAIL_SENDER.server) {
        const found = await account({ kind: "server" });
        return found ? { account: found } : { account: null, problem: "server-account-not-set" };
      }
      if (type === EMAIL_SENDER.own) {
        const found = await account({ kind: "user", userId });
        return found ? { account: found } : { account: null, problem: "own-account-not-set" };
      }
      return { account: null, problem: "sender-none" };
    },
    /**
     * The user's own SMTP settings (/api/user/smtp/info and update) exist only for sender type 2;
     * for 0 and 1 they are refused with 1008 (`reason: "email-sender-type"`), as the web's account
     * menu offers "E-mail settings" only for type 2.
     */
    async requireOwnSender(userId: number): Promise<void> {
      const row = await k.selectFrom("users").select("email_sender_type").where("id", "=", userId).executeTakeFirst();
      if (row?.email_sender_type !== EMAIL_SENDER.own) fail("PermissionDenied", { reason: "email-sender-type", emailSenderType: row?.email_sender_type ?? 0 });
    },
    /** Sends one message through `from` (checks the target address and the headers first); the server's answer. */
    send(from: MailAccount, mail: OutgoingMail): Promise<string> {
      return deliver(from, mail, { allowPrivate: mayReachPrivate(from.owner), ca: smtpCa() });
    },
    /** Several messages over one connection through `from`; each one's outcome (notifications by e-mail). */
    sendEach(from: MailAccount, mails: OutgoingMail[]) {
      return deliverEach(from, mails, { allowPrivate: mayReachPrivate(from.owner), ca: smtpCa() });
    },
    /**
     * The Email setting's test mail through the saved server account, to `to` or else the
     * administrator's address: the server's answer, or 4443/4444 with what it said (docs/mail.md,
     * "Test mail"). 4135 without a saved account, 1022 without an address.
     */
    async sendTest(to: string | undefined, language: MailLanguage) {
      const from = (await account({ kind: "server" })) ?? fail("EmailNotConfigured", { reason: "server-account-not-set" });
      let address = to?.trim() ?? "";
      if (!address) {
        const admin = await k.selectFrom("users").select("email").where("role", "=", "admin").orderBy("id").executeTakeFirst();
        address = admin?.email ?? "";
      }
      if (!address) fail("EmailFormat", { field: "to", reason: "required" });
      const answer = await deliverTest(from, testMail({ to: address, language, host: from.host, at: new Date(clock.now()) }), { allowPrivate: mayReachPrivate(from.owner), ca: smtpCa() });
      return { to: address, ...answer };
    },
    /**
     * Whether the server's mail server (admin Email settings: host, port, encryption) takes `user`
     * and `password` in SMTP AUTH: the e-mail way of signing in (docs/authentication.md). 4135 when
     * no server account is set.
     */
    async authenticates(user: string, password: string): Promise<boolean> {
      const row = (await rowOf({ kind: "server" })) ?? fail("EmailNotConfigured");
      return smtpAuthenticates(row, user, password, { allowPrivate: mayReachPrivate({ kind: "server" }), ca: smtpCa() });
    },
    /** Removes the server's mail account (admin Email setting): mails that need it are refused with 4135 / 4442 again. */
    async removeServer(): Promise<SmtpSettingsInfo> {
      await k.deleteFrom("smtp_accounts").where("owner", "=", ownerKey({ kind: "server" })).execute();
      await settings.update("transfer", { emailAccount: "" });
      return info({ kind: "server" });
    },
    /** Whether the server has a mail account (the e-mail way needs its server). */
    async serverConfigured(): Promise<boolean> {
      return (await rowOf({ kind: "server" })) !== undefined;
    },
  };
}

export type Mail = ReturnType<typeof createMail>;
