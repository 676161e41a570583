import { hashWorkerSource } from "~/transfers/hash-worker.server";
import { refusePost } from "~/utils/form.server";

/** /transfers/hash-worker.js: the transfer panel's hashing Web Worker (app/transfers/hash-worker.ts). */
export async function loader() {
  return new Response(await hashWorkerSource(), {
    headers: { "Content-Type": "text/javascript; charset=utf-8", "Cache-Control": "public, max-age=3600", "X-Content-Type-Options": "nosniff" },
  });
}

/** Takes no posts: 405, the body discarded. */
export const action = refusePost;
