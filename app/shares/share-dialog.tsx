import { useField } from "@conform-to/react";
import { useFetcher } from "@remix-run/react";
import { useEffect, useMemo, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { Button } from "../components/ui/button";
import { FormBuilder, type CustomFieldProps, type FormField } from "../components/ui/form";
import { Modal } from "../components/ui/modal";
import { TextInput } from "../components/ui/text-input";
import { useToast } from "../components/ui/toast";
import type { action, loader, MailProblem } from "../routes/link.create";
import { aliasAvailability, randomSharePassword, SHARE_PASSWORD_MAX } from "../../contract/share";
import { copyToClipboard } from "./clipboard";
import { EmailTagInput } from "./email-tag-input";
import { copyText, DEFAULT_EXPIRY, EXPIRY_CHOICES, maxExpiryDate, minExpiryDate, shareFormSchema } from "./rules";

/** What the file browser asks for: a download link of `items`, or an upload invitation into one folder. */
export interface ShareRequest {
  kind: "download" | "upload";
  /** Full paths in the personal space, with their names and whether each is a folder. */
  items: { path: string; name: string; isFolder: boolean }[];
  /** The folder the browser shows (the items' folder). */
  serverPath: string;
}

export const SHARE_DIALOG_WIDTH = 560;
const MAIL_SWITCHES = ["emailOn", "notify"] as const;

const boxClass = "h-8 w-full rounded border bg-white px-3 text-sm text-gray-900 focus:outline-none focus:ring-1";
const boxState = (invalid: boolean) => (invalid ? "border-red-600 focus:ring-red-600" : "border-gray-300 focus:border-primary focus:ring-primary");

type Watched = { needPassword: boolean; expiry: string; emailOn: boolean; notify: boolean };

/**
 * Follows the switches the dialog's layout depends on, and turns an e-mail switch back off when the
 * user has no mail sender, saying which one is missing (app.transfer.share.email.<problem>).
 */
function Watcher({
  onChange,
  mailReady,
  mailRefused,
  mailProblem,
}: {
  onChange: (w: Watched) => void;
  mailReady: boolean | undefined;
  mailRefused: boolean;
  mailProblem: MailProblem | null | undefined;
}) {
  const { t } = useTranslation();
  const toast = useToast();
  const [needPassword, form] = useField<string>("needPassword");
  const [expiry] = useField<string>("expiry");
  const [emailOn] = useField<string>("emailOn");
  const [notify] = useField<string>("notify");
  const state: Watched = { needPassword: needPassword.value === "on", expiry: expiry.value ?? DEFAULT_EXPIRY, emailOn: emailOn.value === "on", notify: notify.value === "on" };
  const key = JSON.stringify(state);
  const latest = useRef(onChange);
  latest.current = onChange;
  useEffect(() => latest.current(JSON.parse(key) as Watched), [key]);

  const anyMail = state.emailOn || state.notify;
  useEffect(() => {
    if (!anyMail || !(mailReady === false || mailRefused)) return;
    toast.error(t(mailProblem ? `app.transfer.share.email.${mailProblem}` : "app.transfer.share.email.error"));
    for (const name of MAIL_SWITCHES) form.update({ name, value: "" });
  }, [anyMail, mailReady, mailRefused, mailProblem, form, toast, t]);
  return null;
}

function AliasInputs({ items, invalid, errorId, id }: { items: ShareRequest["items"]; invalid: boolean; errorId: string; id: string }) {
  const { t } = useTranslation();
  return (
    <div id={id} className="flex flex-col gap-1.5">
      {items.map((item, index) => (
        <input
          key={item.path}
          name={`items[${index}].alias`}
          aria-label={t("share.alias.for", { name: item.name })}
          placeholder={item.name}
          maxLength={255}
          aria-invalid={invalid || undefined}
          aria-describedby={invalid ? errorId : undefined}
          className={`${boxClass} ${boxState(invalid)}`}
        />
      ))}
    </div>
  );
}

function ShareForm({ request, onCreated }: { request: ShareRequest; onCreated: (created: { url: string; password: string; mailError: string | null }) => void }) {
  const { t } = useTranslation();
  const create = useFetcher<typeof action>();
  const mail = useFetcher<typeof loader>();
  const upload = request.kind === "upload";
  const [watched, setWatched] = useState<Watched>({ needPassword: true, expiry: DEFAULT_EXPIRY, emailOn: false, notify: false });
  const [preset] = useState(() => randomSharePassword());
  const [minDate] = useState(() => minExpiryDate(new Date()));
  const [tzOffset] = useState(() => new Date().getTimezoneOffset());
  // Only days the engine takes: from today (a link lasts to the end of the day) to its last expiry.
  const [maxDate] = useState(() => maxExpiryDate(tzOffset));
  const aliasHint = upload ? null : aliasAvailability(request.items);

  // Asked once per opening: does the user's mail sender (by their emailSenderType) exist?
  useEffect(() => {
    mail.load("/link/create");
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once per opening
  }, []);

  const created = create.state === "idle" ? create.data?.created : null;
  useEffect(() => {
    if (created) onCreated(created);
  }, [created, onCreated]);

  const fields = useMemo<FormField[]>(() => {
    const list: FormField[] = [];
    if (!upload) list.push({ name: "needPassword", label: t("share.need-password"), type: "switch" });
    if (upload || watched.needPassword) list.push({ name: "password", label: t("share.password"), type: "input", required: true, placeholder: t("share.password.hint") });
    list.push({ name: "expiry", label: t("share.expiry"), type: "select", required: true, options: EXPIRY_CHOICES.map((c) => ({ value: c, label: t(`share.expiry.${c}`) })) });
    if (watched.expiry === "date") {
      list.push({
        name: "expireDate",
        label: t("share.expiry.date.label"),
        type: "custom",
        required: true,
        render: ({ id, name, invalid, errorId }: CustomFieldProps) => (
          <input
            id={id}
            name={name}
            type="date"
            min={minDate}
            max={maxDate}
            aria-invalid={invalid || undefined}
            aria-describedby={invalid ? errorId : undefined}
            className={`${boxClass} ${boxState(invalid)}`}
          />
        ),
      });
    }
    if (!upload) {
      list.push({ name: "allowDownload", label: t("share.allow-download"), type: "switch" });
      list.push({ name: "bind", label: t("share.bind"), type: "switch" });
    }
    list.push({ name: "emailOn", label: t("share.email.on"), type: "switch" });
    if (watched.emailOn) {
      list.push({
        name: "shareEmail",
        label: t("share.email.recipients"),
        type: "custom",
        required: true,
        render: ({ id, name, invalid, errorId }: CustomFieldProps) => (
          <EmailTagInput id={id} name={name} invalid={invalid} errorId={errorId} placeholder={t("share.email.placeholder")} />
        ),
      });
      list.push({ name: "message", label: t("share.email.message"), type: "textarea" });
    }
    list.push({ name: "notify", label: t(upload ? "share.notify.upload" : "share.notify.download"), type: "switch" });
    // Off by default: an invitation is a file drop, each visitor sees only their own uploads (docs/shares.md).
    if (upload) list.push({ name: "showContents", label: t("share.invite.show-contents"), type: "checkbox" });
    if (!upload && aliasHint === null) {
      list.push({
        name: "aliases",
        label: t("share.aliases"),
        type: "custom",
        render: ({ id, invalid, errorId }: CustomFieldProps) => <AliasInputs id={id} items={request.items} invalid={invalid} errorId={errorId} />,
      });
    }
    return list;
  }, [t, upload, watched.needPassword, watched.expiry, watched.emailOn, aliasHint, minDate, maxDate, request.items]);

  const names = request.items.map((i) => i.name).join(", ");
  return (
    <FormBuilder
      id={`share-${request.kind}`}
      schema={shareFormSchema}
      fields={fields}
      layout="vertical"
      defaultValue={{ needPassword: "on", password: preset, expiry: DEFAULT_EXPIRY, allowDownload: "on" }}
      lastResult={create.data?.result}
      as={create.Form}
      method="post"
      action="/link/create"
      className="max-h-[65vh] overflow-y-auto pr-1"
    >
      <Watcher
        onChange={setWatched}
        mailReady={mail.data?.mailReady}
        mailRefused={create.state === "idle" && create.data?.mailRefused === true}
        mailProblem={(create.state === "idle" && create.data?.mailProblem) || mail.data?.mailProblem}
      />
      <input type="hidden" name="kind" value={request.kind} />
      <input type="hidden" name="serverPath" value={request.serverPath} />
      <input type="hidden" name="tzOffset" value={tzOffset} />
      {request.items.map((item, index) => (
        <span key={item.path} hidden>
          <input type="hidden" name={`items[${index}].path`} value={item.path} />
          <input type="hidden" name={`items[${index}].folder`} value={item.isFolder ? "1" : "0"} />
        </span>
      ))}
      <div className="flex w-[496px] max-w-full flex-col gap-3">
        {aliasHint && !upload && <p className="text-xs text-gray-500">{t(`app.share.alias.${aliasHint}`)}</p>}
        <p className="truncate text-xs text-gray-500" title={names}>
          {upload ? t("share.invite.target", { path: request.items[0]?.path ?? request.serverPath }) : t("share.items", { names })}
        </p>
        <Button type="submit" className="self-end" loading={create.state !== "idle"}>
          {t(upload ? "share.invite.create" : "share.create")}
        </Button>
      </div>
    </FormBuilder>
  );
}

/** After creation: the link, its password and the copy button. */
function Created({ url, password, mailError, onClose }: { url: string; password: string; mailError: string | null; onClose: () => void }) {
  const { t } = useTranslation();
  const toast = useToast();
  useEffect(() => {
    if (mailError) toast.warning(t("share.mail-error", { message: mailError }));
  }, [mailError, toast, t]);
  const copy = async () => {
    const ok = await copyToClipboard(copyText(url, password, { link: t("share.link"), password: t("share.password") }));
    if (ok) toast.success(t("share.copy.done"));
    else toast.error(t("share.copy.failed"));
  };
  return (
    <div className="flex flex-col gap-4">
      <p role="status" className="text-sm font-medium text-green-700">
        {t("share.created")}
      </p>
      <TextInput label={t("share.link")} value={url} readOnly onFocus={(e) => e.currentTarget.select()} />
      {password && <TextInput label={t("share.password")} value={password} readOnly maxLength={SHARE_PASSWORD_MAX} onFocus={(e) => e.currentTarget.select()} />}
      <div className="flex justify-end gap-2">
        <Button variant="outlined" onClick={onClose}>
          {t("global.close")}
        </Button>
        <Button onClick={() => void copy()}>{t("share.copy")}</Button>
      </div>
    </div>
  );
}

/**
 * The share dialog (download link) and the invite dialog (upload invitation) of spec sections 2
 * and 5: a form posting to /link/create, then the link, the password and a copy button.
 */
export function ShareDialog({ request, onClose }: { request: ShareRequest | null; onClose: () => void }) {
  const { t } = useTranslation();
  // Kept while the dialog fades out after `request` became null.
  const [shown, setShown] = useState<ShareRequest | null>(request);
  const [opening, setOpening] = useState(0);
  const [created, setCreated] = useState<{ url: string; password: string; mailError: string | null } | null>(null);
  useEffect(() => {
    if (!request) return;
    setShown(request);
    setCreated(null);
    setOpening((n) => n + 1);
  }, [request]);
  const upload = shown?.kind === "upload";
  return (
    <Modal
      open={request !== null}
      onClose={onClose}
      afterClose={() => setShown(null)}
      title={t(upload ? "share.invite.title" : "share.title")}
      width={SHARE_DIALOG_WIDTH}
      footer={null}
    >
      {shown &&
        (created ? (
          <Created {...created} onClose={onClose} />
        ) : (
          <ShareForm key={opening} request={shown} onCreated={setCreated} />
        ))}
    </Modal>
  );
}
