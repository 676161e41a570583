import { PassThrough } from "node:stream";
import { createReadableStreamFromReadable, type EntryContext, type HandleDataRequestFunction } from "@remix-run/node";
import { RemixServer } from "@remix-run/react";
import { createInstance } from "i18next";
import { isbot } from "isbot";
import { renderToPipeableStream } from "react-dom/server";
import { I18nextProvider, initReactI18next } from "react-i18next";
import { i18nConfig } from "./i18n/config";
import { getLanguage } from "./i18n/i18next.server";
import { discardBody } from "./utils/form.server";

const ABORT_DELAY_MS = 5_000;

/**
 * What every page and data answer gets (static files are served before Remix). Pages and their data
 * carry engine and socket tokens (the signed-in layout, the share page): `no-store`, so no cache and
 * no back button keeps them. A body nothing read (a post to a page without an action) is discarded
 * (utils/form.server.ts), never left to hold the connection.
 */
function harden(request: Request, headers: Headers) {
  headers.set("Cache-Control", "no-store");
  discardBody(request);
}

export const handleDataRequest: HandleDataRequestFunction = (response, { request }) => {
  harden(request, response.headers);
  return response;
};

export default async function handleRequest(request: Request, status: number, headers: Headers, context: EntryContext) {
  harden(request, headers);
  // Every response renders in the request's language, from the same resources the browser uses.
  const i18n = createInstance();
  await i18n.use(initReactI18next).init({ ...i18nConfig, lng: await getLanguage(request) });
  const readyEvent = isbot(request.headers.get("user-agent")) ? "onAllReady" : "onShellReady";

  headers.set("X-Content-Type-Options", "nosniff");
  headers.set("Referrer-Policy", "same-origin");
  headers.set("X-Frame-Options", "DENY");

  return new Promise<Response>((resolve, reject) => {
    let failed = false;
    const { pipe, abort } = renderToPipeableStream(
      <I18nextProvider i18n={i18n}>
        <RemixServer context={context} url={request.url} abortDelay={ABORT_DELAY_MS} />
      </I18nextProvider>,
      {
        [readyEvent]() {
          const body = new PassThrough();
          headers.set("Content-Type", "text/html");
          // Clear the abort timer once the page is sent, so it never holds the process open.
          body.on("close", () => clearTimeout(timer));
          resolve(new Response(createReadableStreamFromReadable(body), { headers, status: failed ? 500 : status }));
          pipe(body);
        },
        onShellError: reject,
        onError(error: unknown) {
          failed = true;
          console.error(error);
        },
      },
    );
    const timer = setTimeout(abort, ABORT_DELAY_MS);
  });
}
