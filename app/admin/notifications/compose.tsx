import type { SubmissionResult } from "@conform-to/react";
import { Form, Link, useFetcher } from "@remix-run/react";
import { useEffect, useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import { FormBuilder, type FormField } from "~/components/ui/form";
import { DialogFooter, Modal } from "~/components/ui/modal";
import { useToast } from "~/components/ui/toast";
import type { action } from "~/routes/admin.notifications";
import { PlainReceivers, ReceiverPicker, type PickedUser } from "./receiver-picker";
import { composeSchema } from "./schema";

export const COMPOSE_WIDTH = 640;
const EMAIL_PAGE = "/admin/shares/email";

/** What the compose form starts with: empty, or (without JavaScript, after Find) what was typed. */
export interface ComposeDraft {
  title: string;
  content: string;
  to: "picked" | "all";
  way: string[];
  picked: PickedUser[];
}
export const emptyDraft: ComposeDraft = { title: "", content: "", to: "picked", way: ["website"], picked: [] };

function useFields(): FormField[] {
  const { t } = useTranslation();
  return useMemo(
    () => [
      { name: "title", label: t("admin.notices.subject"), type: "input", required: true },
      { name: "content", label: t("admin.notices.content"), type: "textarea", required: true },
      {
        name: "way",
        label: t("admin.notices.way"),
        type: "checkboxGroup",
        options: [
          { value: "website", label: t("admin.notices.way.website") },
          { value: "email", label: t("admin.notices.way.email") },
        ],
      },
      {
        name: "to",
        label: t("admin.notices.to"),
        type: "radioGroup",
        options: [
          { value: "picked", label: t("admin.notices.to.picked") },
          { value: "all", label: t("admin.notices.to.all") },
        ],
      },
    ],
    [t],
  );
}

/** The engine's refusal under the form; "e-mail needs the server's account" links to the Email setting screen. */
export function ComposeError({ code }: { code: number | null }) {
  const { t } = useTranslation();
  if (code === null) return null;
  return (
    <div role="alert" className="rounded border border-red-200 bg-red-50 p-3 text-sm text-red-700">
      <p>{t(`error.${code}`, { defaultValue: t("global.error.unknown", { code }) })}</p>
      {code === 4442 && (
        <Link to={EMAIL_PAGE} className="mt-1 inline-block font-medium text-primary underline">
          {t("admin.notices.mail.setup")}
        </Link>
      )}
    </div>
  );
}

const defaultsOf = (draft: ComposeDraft) => ({ intent: "send", title: draft.title, content: draft.content, to: draft.to, way: draft.way });

/** New notification (with JavaScript): a dialog posting to the page's action with a fetcher. */
export function ComposeDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const toast = useToast();
  const fetcher = useFetcher<typeof action>();
  const fields = useFields();
  const [picked, setPicked] = useState<PickedUser[]>([]);
  const [opening, setOpening] = useState(0);
  useEffect(() => {
    if (!open) return;
    setPicked([]);
    setOpening((n) => n + 1);
  }, [open]);
  const answer = fetcher.state === "idle" && fetcher.data && fetcher.data.intent === "send" ? fetcher.data : null;
  useEffect(() => {
    if (!answer?.sent) return;
    toast.success(t(answer.byMail ? "admin.notices.sent.mail" : "admin.notices.sent"));
    onClose();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once per answer
  }, [fetcher.data, fetcher.state]);
  return (
    <Modal open={open} onClose={onClose} title={t("admin.notices.compose")} width={COMPOSE_WIDTH} footer={null}>
      <FormBuilder
        key={opening}
        id={`compose-${opening}`}
        schema={composeSchema}
        fields={fields}
        layout="vertical"
        defaultValue={defaultsOf(emptyDraft)}
        lastResult={answer && !answer.sent ? answer.submission : undefined}
        as={fetcher.Form}
        method="post"
        action="/admin/notifications"
      >
        <div className="flex flex-col gap-4">
          <input type="hidden" name="intent" value="send" />
          <ReceiverPicker picked={picked} onChange={setPicked} />
          <ComposeError code={answer && !answer.sent ? answer.code : null} />
          <DialogFooter onCancel={onClose} busy={fetcher.state !== "idle"} confirmLabel={t("admin.notices.send")} />
        </div>
      </FormBuilder>
    </Modal>
  );
}

/** The same form as a section of the page where there is no JavaScript; Find GETs the page with what was typed. */
export function ComposePanel({
  draft,
  found,
  search,
  back,
  lastResult,
  code,
}: {
  draft: ComposeDraft;
  found: PickedUser[] | null;
  search: string;
  back: string;
  lastResult?: SubmissionResult<string[]>;
  code: number | null;
}) {
  const { t } = useTranslation();
  const fields = useFields();
  return (
    <section aria-labelledby="compose-title" className="rounded border border-gray-200 bg-white p-4" style={{ maxWidth: COMPOSE_WIDTH }}>
      <h2 id="compose-title" className="mb-4 text-base font-semibold text-gray-900">
        {t("admin.notices.compose")}
      </h2>
      <FormBuilder id="compose-page" schema={composeSchema} fields={fields} layout="vertical" defaultValue={defaultsOf(draft)} lastResult={lastResult} as={Form} method="post" action="/admin/notifications?compose=1">
        <div className="flex flex-col gap-4">
          <input type="hidden" name="intent" value="send" />
          <input type="hidden" name="back" value={back} />
          <input type="hidden" name="compose" value="1" />
          <PlainReceivers picked={draft.picked} found={found} search={search} />
          <ComposeError code={code} />
          <DialogFooter cancelHref={`/admin/notifications${back}`} confirmLabel={t("admin.notices.send")} />
        </div>
      </FormBuilder>
    </section>
  );
}
