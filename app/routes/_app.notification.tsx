import { type ActionFunctionArgs, data, type LoaderFunctionArgs, redirect } from "@remix-run/node";
import { Form, useFetcher, useLoaderData, useLocation, useNavigation } from "@remix-run/react";
import { Fragment, useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import * as z from "zod";
import { Button } from "~/components/ui/button";
import { Empty } from "~/components/ui/empty";
import { ChevronDownIcon } from "~/components/ui/icons";
import { Pagination } from "~/components/ui/pagination";
import { DEFAULT_PAGE_SIZE, readPaginationParams, totalPagesFor } from "~/components/ui/pagination-model";
import { useToast } from "~/components/ui/toast";
import { useHydrated } from "~/utils/use-hydrated";
import { useFormatTime } from "~/utils/use-time-zone";
import { safeRedirect } from "~/utils/redirect";
import { requireUser } from "~/utils/session.server";
import { redirectWithToast } from "~/utils/toast.server";
import type { noticeItem, noticeListData } from "../../contract/notices";
import { readForm } from "~/utils/form.server";

type Notice = z.infer<typeof noticeItem>;

const pageHref = (page: number, size: number) => (size === DEFAULT_PAGE_SIZE ? `?page=${page}` : `?page=${page}&size=${size}`);

/** The caller's notifications, one page (?page=, ?size=; 10 a page by default), newest first. */
export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const { page, size } = readPaginationParams(new URL(request.url).searchParams);
  const reply = await user.call<z.infer<typeof noticeListData>>(`/api/notice/list?pageNum=${page}&pageSize=${size}`);
  if (!reply.result || !reply.data) throw new Response(reply.message, { status: 502 });
  const headers = { "Set-Cookie": await user.commit() };
  const { notic_list, total, unreadCount } = reply.data;
  // Past the last page (notifications were deleted meanwhile, or a hand-made link): show the last one.
  const last = totalPagesFor(total, size);
  if (page > last) throw redirect(`/notification${pageHref(last, size)}`, { headers });
  return data({ notices: notic_list, total, unreadCount, page, size }, { headers });
}

/** `back`, sent by the forms that work without JavaScript: the page to return to (post/redirect/get). */
const readSchema = z.discriminatedUnion("intent", [
  z.object({ intent: z.literal("read"), id: z.coerce.number().int().positive(), back: z.string().optional() }),
  z.object({ intent: z.literal("read-all"), back: z.string().optional() }),
]);

/** Marks one notification, or all of them, read. The layout's bell count follows, as Remix reloads loaders after an action. */
export async function action({ request }: ActionFunctionArgs) {
  const form = await readForm(request);
  const user = await requireUser(request);
  const parsed = readSchema.safeParse(Object.fromEntries(form));
  if (!parsed.success) return data({ ok: false as const, code: 400 }, { status: 400, headers: { "Set-Cookie": await user.commit() } });
  const { back } = parsed.data;
  const reply =
    parsed.data.intent === "read-all"
      ? await user.call("/api/notice/status/read-all", { method: "PATCH" })
      : await user.call("/api/notice/status/update", { method: "PATCH", body: JSON.stringify({ noticeIds: [parsed.data.id] }) });
  const headers = { "Set-Cookie": await user.commit() };
  if (back !== undefined) {
    const to = back.startsWith("/notification") ? safeRedirect(back, "/notification") : "/notification";
    return reply.result ? redirect(to, { headers }) : redirectWithToast(to, { type: "error", message: `error.${reply.code}` }, { headers });
  }
  return data(reply.result ? { ok: true as const } : { ok: false as const, code: reply.code }, { headers });
}


/** The text with its newlines as line breaks; always text, so markup in it shows as written. */
function Lines({ text }: { text: string }) {
  return (
    <p className="break-words text-sm leading-6 text-gray-700">
      {text.split(/\r?\n/).map((line, index) => (
        <Fragment key={index}>
          {index > 0 && <br />}
          {line}
        </Fragment>
      ))}
    </p>
  );
}

/** The machine-readable form of a unix time, or nothing for one the calendar cannot hold. */
function isoTime(seconds: number): string | undefined {
  const date = new Date(seconds * 1000);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** Title, time and unread dot: the visible header of one item, in both forms of the accordion. */
function ItemHeader({ notice, unread, open }: { notice: Notice; unread: boolean; open?: boolean }) {
  const { t } = useTranslation();
  const formatTime = useFormatTime();
  return (
    <>
      {/* The spaces between the parts do not show in the flex row; they keep words apart in the accessible name. */}
      <span className="min-w-0 flex-1 truncate font-medium text-gray-900">{notice.title}</span>{" "}
      <time dateTime={isoTime(notice.create_time)} className="shrink-0 text-sm text-gray-500">
        {formatTime(notice.create_time)}
      </time>{" "}
      <span className="flex w-12 shrink-0 items-center justify-center">
        {unread && (
          <>
            <span aria-hidden="true" className="h-2 w-2 rounded-full bg-red-500" />
            <span className="sr-only">{t("notification.unread")}</span>
          </>
        )}
      </span>
      <ChevronDownIcon size={14} className={`shrink-0 text-gray-400 transition-transform ${open ? "rotate-180" : ""} group-open:rotate-180`} />
    </>
  );
}

const headerClass = "flex w-full items-center gap-3 px-4 py-3 text-left hover:bg-gray-50 focus-visible:outline focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-primary";

/** With JavaScript: a disclosure button; opening an unread notification marks it read. */
function AccordionItem({ notice }: { notice: Notice }) {
  const [open, setOpen] = useState(false);
  const fetcher = useFetcher<typeof action>();
  const toast = useToast();
  // Read as soon as the request leaves; the reloaded list then confirms it.
  const marked = fetcher.state !== "idle" || fetcher.data?.ok === true;
  const unread = !notice.isShowed && !marked;
  const failure = fetcher.data && !fetcher.data.ok ? fetcher.data.code : null;
  useEffect(() => {
    if (failure !== null) toast.error(`error.${failure}`);
  }, [failure, toast]);

  const buttonId = `notice-${notice.id}`;
  const panelId = `notice-${notice.id}-content`;
  const toggle = () => {
    setOpen(!open);
    if (!open && unread) fetcher.submit({ intent: "read", id: String(notice.id) }, { method: "post" });
  };
  return (
    <>
      <h2>
        <button type="button" id={buttonId} aria-expanded={open} aria-controls={panelId} onClick={toggle} className={headerClass}>
          <ItemHeader notice={notice} unread={unread} open={open} />
        </button>
      </h2>
      <div id={panelId} hidden={!open} className="px-4 pb-4">
        <Lines text={notice.content} />
      </div>
    </>
  );
}

/** Without JavaScript: <details>, and a form button that marks an unread notification read. */
function DisclosureItem({ notice }: { notice: Notice }) {
  const { t } = useTranslation();
  const location = useLocation();
  return (
    <details className="group">
      <summary className={`${headerClass} cursor-pointer list-none [&::-webkit-details-marker]:hidden`}>
        <ItemHeader notice={notice} unread={!notice.isShowed} />
      </summary>
      <div className="px-4 pb-4">
        <Lines text={notice.content} />
        {!notice.isShowed && (
          <Form method="post" className="mt-3">
            <input type="hidden" name="intent" value="read" />
            <input type="hidden" name="id" value={notice.id} />
            <input type="hidden" name="back" value={location.pathname + location.search} />
            <Button type="submit" size="small" variant="outlined">
              {t("notification.mark-read")}
            </Button>
          </Form>
        )}
      </div>
    </details>
  );
}

/** Marks every unread notification read; a plain form, so it works without JavaScript too. */
function MarkAllRead({ unreadCount }: { unreadCount: number }) {
  const { t } = useTranslation();
  const location = useLocation();
  const navigation = useNavigation();
  const busy = navigation.state === "submitting" && navigation.formData?.get("intent") === "read-all";
  return (
    <Form method="post">
      <input type="hidden" name="intent" value="read-all" />
      <input type="hidden" name="back" value={location.pathname + location.search} />
      <Button type="submit" size="small" variant="outlined" disabled={unreadCount === 0 || busy}>
        {t("notification.mark-all-read")}
      </Button>
    </Form>
  );
}

export default function NotificationPage() {
  const { notices, total, unreadCount, page, size } = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const hydrated = useHydrated();
  return (
    <section aria-labelledby="notification-title" className="max-w-5xl">
      <div className="mb-4 flex items-center justify-between gap-4">
        <h1 id="notification-title" className="text-lg font-semibold">
          {t("notification.title")}
        </h1>
        {total > 0 && <MarkAllRead unreadCount={unreadCount} />}
      </div>
      {notices.length === 0 ? (
        <Empty description={t("notification.empty")} className="rounded border border-gray-200 bg-white" />
      ) : (
        <ul className="divide-y divide-gray-200 rounded border border-gray-200 bg-white">
          {notices.map((notice) => (
            <li key={notice.id}>{hydrated ? <AccordionItem notice={notice} /> : <DisclosureItem notice={notice} />}</li>
          ))}
        </ul>
      )}
      {total > 0 && <Pagination total={total} page={page} pageSize={size} hrefFor={pageHref} className="mt-4 justify-end" />}
    </section>
  );
}
