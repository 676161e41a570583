import { createCookieSessionStorage, redirect } from "@remix-run/node";
import { sessionSecret } from "./secret.server";

export type FlashToast = { type: "success" | "info" | "warning" | "error"; message: string };

const flash = createCookieSessionStorage({
  cookie: { name: "ferry_toast", httpOnly: true, sameSite: "lax", path: "/", secrets: [sessionSecret], maxAge: 60 },
});

/** A redirect that shows a toast on the next page (the root loader reads it once). */
export async function redirectWithToast(to: string, toast: FlashToast, init: { headers?: HeadersInit } = {}) {
  const session = await flash.getSession();
  session.flash("toast", toast);
  const headers = new Headers(init.headers);
  headers.append("Set-Cookie", await flash.commitSession(session));
  return redirect(to, { headers });
}

/** The pending toast, and the header that clears it. */
export async function takeToast(request: Request): Promise<{ toast: FlashToast | null; setCookie: string | null }> {
  const session = await flash.getSession(request.headers.get("Cookie"));
  const toast = (session.get("toast") as FlashToast | undefined) ?? null;
  return { toast, setCookie: toast ? await flash.commitSession(session) : null };
}
