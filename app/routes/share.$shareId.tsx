import { parseWithZod } from "@conform-to/zod/v4";
import { type ActionFunctionArgs, data, type LoaderFunctionArgs, redirect } from "@remix-run/node";
import { type ShouldRevalidateFunction, useActionData, useLoaderData, useLocation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { Empty } from "~/components/ui/empty";
import { FormError } from "~/components/ui/form-error";
import { getT } from "~/i18n/i18next.server";
import { useRootData } from "~/root";
import { ExpiredView } from "~/shares/page/expired-view";
import { DiskListing } from "~/shares/page/disk-listing";
import { LoginView } from "~/shares/page/login-view";
import { shareLoginSchema } from "~/shares/page/login-schema";
import { ShareBrowser } from "~/shares/page/share-browser";
import { useHydrated } from "~/utils/use-hydrated";
import { ShareTopBar } from "~/shares/page/share-top-bar";
import {
  diskState,
  fileServerBase,
  fileServerInfo,
  isLinkGone,
  issueToken,
  recordDownload,
  refusalText,
  shareDownloadTicket,
  verifyLink,
  type DiskState,
  type PageState,
} from "~/shares/page/share-page.server";
import { EngineError } from "~/utils/engine.server";
import { isHttps } from "~/utils/session.server";
import { deviceFingerprint, getShareToken, setShareToken } from "~/utils/share-session.server";
import { productTitleMeta } from "~/utils/site";
import { ErrorCode } from "../../contract/errors";
import { shareIdOf } from "../../contract/share";
import { readForm } from "~/utils/form.server";

export const meta = productTitleMeta;

/**
 * Decides the view (spec section 4): a share token in the share session → disk (renewed through
 * `info`), unless the link is gone (expired) or bound elsewhere (login with the error, token
 * dropped); otherwise `verify/url` → expired, login (password needed) or disk (a token issued
 * without one). Nothing here changes state but the visitor's own cookies and, for a link without
 * password that binds the first device, that binding — which is what opening such a link means.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const headers = new Headers({ "Cache-Control": "no-store" });
  const device = await deviceFingerprint(request);
  headers.append("Set-Cookie", device.setCookie);
  const shareId = shareIdOf(params.shareId ?? "");
  const reply = (state: PageState) => data(state, { headers, status: state.view === "expired" ? 404 : 200 });
  // Not a link's id at all (cut off, mistyped, garbage): the error page says the address is not valid.
  if (!shareId) throw data(null, { status: 400, headers });
  const t = await getT(request);

  const held = await getShareToken(request, shareId);
  if (held) {
    const renewed = await issueToken(request, shareId, device.fingerprint, { token: held });
    if (renewed.code === 200 && renewed.data) return reply(await diskState(request, shareId, renewed.data.token, renewed.data));
    // Whatever went wrong, this token is done: the page starts again without it.
    headers.append("Set-Cookie", await setShareToken(request, shareId, null));
    if (isLinkGone(renewed.code)) return reply({ view: "expired" });
    if (renewed.code === ErrorCode.LinkBound) return reply({ view: "login", refusal: t("app.share.login-failed") });
  }

  const verified = await verifyLink(request, shareId, device.fingerprint);
  if (isLinkGone(verified.code)) return reply({ view: "expired" });
  if (verified.code !== 200 || !verified.data) return reply({ view: "login", refusal: refusalText(t, verified.code, verified.data) });
  if (verified.data.needPassword) return reply({ view: "login", refusal: null });
  // No password, but the first device to get in binds the link: that takes the visitor's click.
  if (verified.data.bindSwitch === 1) return reply({ view: "login", refusal: null, confirm: true });

  const issued = await issueToken(request, shareId, device.fingerprint);
  if (isLinkGone(issued.code)) return reply({ view: "expired" });
  if (issued.code !== 200 || !issued.data) return reply({ view: "login", refusal: refusalText(t, issued.code, issued.data) });
  headers.append("Set-Cookie", await setShareToken(request, shareId, issued.data.token));
  return reply(await diskState(request, shareId, issued.data.token, issued.data));
}

/**
 * Plain form posts (spec: the share page works without JavaScript):
 * - `login`: the password → verify/url, then info → the token in the share session → back to the page;
 *   a wrong one stays on the login view with the error.
 * - `download`: one file → its signed URL, the download count (`accessDest`), then a 302 to the file server.
 * - `count` (the file browser, with JavaScript): records a download the browser starts itself.
 */
export async function action({ request, params }: ActionFunctionArgs) {
  const form = await readForm(request);
  const shareId = shareIdOf(params.shareId ?? "");
  const pageUrl = new URL(request.url);
  const back = `${pageUrl.pathname}${pageUrl.search}`;
  if (!shareId) return redirect(back);
  const intent = form.get("intent");
  const device = await deviceFingerprint(request);
  const t = await getT(request);

  if (intent === "open") {
    try {
      const issued = await issueToken(request, shareId, device.fingerprint);
      if (issued.code !== 200 || !issued.data) return redirect(back);
      return redirect(back, { headers: [["Set-Cookie", device.setCookie], ["Set-Cookie", await setShareToken(request, shareId, issued.data.token)]] });
    } catch (error) {
      if (error instanceof EngineError) return data({ result: null, downloadError: t("global.server.error") }, { status: 502 });
      throw error;
    }
  }

  if (intent === "login") {
    const submission = parseWithZod(form, { schema: shareLoginSchema });
    if (submission.status !== "success") return data({ result: submission.reply({ hideFields: ["password"] }) }, { status: 400 });
    const refuse = (message: string) => data({ result: submission.reply({ formErrors: [message], hideFields: ["password"] }) }, { status: 400 });
    const { password } = submission.value;
    try {
      const verified = await verifyLink(request, shareId, device.fingerprint, password);
      if (isLinkGone(verified.code)) return redirect(back);
      if (verified.code !== 200) return refuse(refusalText(t, verified.code, verified.data));
      const issued = await issueToken(request, shareId, device.fingerprint, { passwd: password });
      if (isLinkGone(issued.code)) return redirect(back);
      if (issued.code !== 200 || !issued.data) return refuse(refusalText(t, issued.code, issued.data));
      return redirect(back, { headers: [["Set-Cookie", device.setCookie], ["Set-Cookie", await setShareToken(request, shareId, issued.data.token)]] });
    } catch (error) {
      if (error instanceof EngineError) return refuse(t("global.server.error"));
      throw error;
    }
  }

  const token = await getShareToken(request, shareId);
  // No token (or it stopped working): the page decides again (login or expired view).
  if (!token) return redirect(back);
  const paths = form.getAll("path").filter((p): p is string => typeof p === "string" && p.length > 0);
  if ((intent !== "download" && intent !== "count") || paths.length === 0) return data({ result: null }, { status: 400 });

  // The token or the link stopped working: the page decides again (login or expired view). Any
  // other refusal (downloads off, a path gone) stays on the listing with its message.
  const refused = (code: number, message: string) =>
    code === ErrorCode.InvalidToken || code === ErrorCode.LinkBound || isLinkGone(code)
      ? redirect(back)
      : data({ result: null, downloadError: t(`error.${code}`, { defaultValue: message }) }, { status: 400 });
  try {
    if (intent === "count") {
      const counted = await recordDownload(request, token, paths);
      return data({ result: null, code: counted.code }, { status: counted.code === 200 ? 200 : 400 });
    }
    // The URL first (it changes nothing), so a download that cannot start is not counted.
    const [ticket, service] = await Promise.all([shareDownloadTicket(request, token, paths), fileServerInfo(request, token)]);
    if (ticket.code !== 200 || !ticket.data) return refused(ticket.code, ticket.message);
    if (service.code !== 200 || !service.data) return data({ result: null, downloadError: t("global.server.error") }, { status: 502 });
    const counted = await recordDownload(request, token, paths);
    if (counted.code !== 200) return refused(counted.code, counted.message);
    // The ticket's URL is relative to the file server: the bytes go from there, never through the web.
    return redirect(`${fileServerBase(request, service.data.server, isHttps(request))}${ticket.data.url}`);
  } catch (error) {
    if (error instanceof EngineError) return data({ result: null, downloadError: t("global.server.error") }, { status: 502 });
    throw error;
  }
}

/** Counting a download changes nothing the page shows: no need to run the loader again. */
export const shouldRevalidate: ShouldRevalidateFunction = ({ formData, defaultShouldRevalidate }) =>
  formData?.get("intent") === "count" ? false : defaultShouldRevalidate;

export default function SharePage() {
  const state = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const root = useRootData();
  const { t } = useTranslation();
  const location = useLocation();
  const hydrated = useHydrated();
  if (!root) return null;
  const disk = state.view === "disk" ? state : null;
  const shareText = disk ? t(disk.kind === "download" ? "share.top.download-link" : "share.top.invitation", { account: disk.account }) : null;
  return (
    <div className="flex min-h-full flex-col">
      <ShareTopBar site={root.site} shareText={shareText} showTransfers={Boolean(disk && hydrated)} />
      <main className="min-w-0 flex-1 p-3 sm:p-6">
        {state.view === "expired" && <ExpiredView />}
        {state.view === "login" && (
          <LoginView
            lastResult={actionData && "result" in actionData ? actionData.result : null}
            refusal={state.refusal}
            confirm={state.confirm}
            retryHref={location.pathname}
          />
        )}
        {disk && <DiskView state={disk} hydrated={hydrated} downloadError={actionData && "downloadError" in actionData && typeof actionData.downloadError === "string" ? actionData.downloadError : null} />}
      </main>
    </div>
  );
}

function DiskView({ state, hydrated, downloadError }: { state: DiskState; hydrated: boolean; downloadError: string | null }) {
  const { t } = useTranslation();
  const download = state.kind === "download";
  return (
    <section aria-labelledby="share-disk-title" className="mx-auto flex max-w-[1200px] flex-col gap-4 rounded-lg bg-white p-4 shadow-sm sm:p-6">
      <h1 id="share-disk-title" className="text-lg font-semibold text-gray-900">
        {t(download ? "share.disk.heading.download" : "share.disk.heading.invitation")}
      </h1>
      {download && !state.allowDownload && <p className="rounded bg-amber-50 px-3 py-2 text-sm text-amber-800">{t("share.disk.no-download")}</p>}
      {!download && <p className="text-sm text-gray-600">{t("share.disk.invitation-intro")}{state.drop && ` ${t("share.disk.drop-intro")}`}</p>}
      <FormError errors={downloadError ? [downloadError] : undefined} />
      {hydrated ? (
        <ShareBrowser shareId={state.shareId} kind={state.kind} allowDownload={state.allowDownload} fallback={<PlainDisk state={state} />} />
      ) : (
        <PlainDisk state={state} />
      )}
    </section>
  );
}

/** What the page shows without JavaScript (and before it runs). */
function PlainDisk({ state }: { state: DiskState }) {
  const { t } = useTranslation();
  if (state.kind === "upload") return <p className="rounded bg-gray-50 px-3 py-2 text-sm text-gray-700">{t("share.disk.upload-needs-js")}</p>;
  if (!state.listing) return <Empty description={state.listingError ?? t("share.disk.unavailable")} />;
  return <DiskListing path={state.path} listing={state.listing} allowDownload={state.allowDownload} />;
}
