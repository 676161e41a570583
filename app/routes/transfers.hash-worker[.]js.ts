import { hashWorkerSource } from "~/transfers/hash-worker.server";

/** /transfers/hash-worker.js: the transfer panel's hashing Web Worker (app/transfers/hash-worker.ts). */
export async function loader() {
  return new Response(await hashWorkerSource(), {
    headers: { "Content-Type": "text/javascript; charset=utf-8", "Cache-Control": "public, max-age=3600", "X-Content-Type-Options": "nosniff" },
  });
}
