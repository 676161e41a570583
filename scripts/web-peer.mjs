// Preloaded into remix-serve (`node --import ./scripts/web-peer.mjs <remix-serve> build/index.js`,
// as scripts/start.mjs and the e2e setup run it): remix-serve gives Remix no socket, so the visitor's
// address would be unknown to the web. Before express sees a request, this replaces any incoming
// `x-ferry-peer` header with the socket's remote address; app/utils/engine.server.ts signs that
// address for the engine (docs/security.md, section 2). Plain Node ESM, no build step.
import diagnostics from "node:diagnostics_channel";

const HEADER = "x-ferry-peer";

// Published by Node's HTTP server for every request, synchronously, before the "request" event.
diagnostics.subscribe("http.server.request.start", ({ request, socket }) => {
  const peer = socket?.remoteAddress ?? "";
  const raw = request.rawHeaders;
  for (let i = raw.length - 2; i >= 0; i -= 2) if (raw[i].toLowerCase() === HEADER) raw.splice(i, 2);
  raw.push(HEADER, peer);
  const headers = request.headers;
  delete headers[HEADER];
  headers[HEADER] = peer;
});

// A path with broken percent-encoding ("/share/%E0%A4%A", a link cut off mid-character) would stop
// express with a bare "Bad Request" page before Remix sees it. Its "%" signs are taken literally
// instead, so the route answers with the product's own page in the reader's language (the share
// page: "this address is not valid").
diagnostics.subscribe("http.server.request.start", ({ request }) => {
  const url = request.url ?? "";
  const query = url.indexOf("?");
  const pathname = query < 0 ? url : url.slice(0, query);
  try {
    decodeURIComponent(pathname);
  } catch {
    request.url = pathname.replace(/%/g, "%25") + (query < 0 ? "" : url.slice(query));
  }
});

// Tells the web that the header above is this preload's, not a visitor's (engine.server.ts reads it).
globalThis[Symbol.for("ferry.webPeer")] = true;

// A post from another site (its Origin names another host, or is "null") is refused by Remix itself,
// before any route runs, with an empty 500: a blank page. Its Origin is moved aside into
// x-ferry-foreign-origin, which app/utils/csrf.server.ts refuses with the product's 403 page in the
// reader's language. (A visitor sending that header only gets their own request refused.)
const FOREIGN = "x-ferry-foreign-origin";
diagnostics.subscribe("http.server.request.start", ({ request }) => {
  const raw = request.rawHeaders;
  let origin = null;
  for (let i = raw.length - 2; i >= 0; i -= 2) {
    const name = raw[i].toLowerCase();
    if (name === FOREIGN) raw.splice(i, 2);
    else if (name === "origin") origin = raw[i + 1];
  }
  const headers = request.headers;
  delete headers[FOREIGN];
  if (origin === null || request.method === "GET" || request.method === "HEAD") return;
  const forwarded = headers["x-forwarded-host"];
  const host = (typeof forwarded === "string" && forwarded.split(",")[0].trim()) || headers.host;
  let originHost = null;
  try {
    originHost = origin === "null" ? null : new URL(origin).host;
  } catch {
    // not a URL: foreign as well
  }
  if (originHost !== null && originHost === host) return;
  for (let i = raw.length - 2; i >= 0; i -= 2) if (raw[i].toLowerCase() === "origin") raw.splice(i, 2);
  raw.push(FOREIGN, origin);
  delete headers.origin;
  headers[FOREIGN] = origin;
});
