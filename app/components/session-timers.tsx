import { useFetcher, useFetchers, useNavigation } from "@remix-run/react";
import { useEffect, useRef, useState } from "react";

/** Spec section 4/9: inactivity 30 minutes (checked every 60 s) signs out; the token is refreshed every 20 minutes. */
export const IDLE_TIMEOUT_MS = 30 * 60_000;
export const REFRESH_INTERVAL_MS = 20 * 60_000;
export const CHECK_INTERVAL_MS = 60_000;
const REFRESH_FETCHER = "session-refresh";

/**
 * The browser side of the session: any request (navigation, form, fetcher) is activity. The server
 * enforces the same limits on every request, so this only makes them happen on time while a page
 * sits open. Not used on share pages. The admin console passes its own sign-out and refresh actions.
 */
export function SessionTimers({ logoutAction = "/logout", sessionAction = "/session" }: { logoutAction?: string; sessionAction?: string } = {}) {
  const navigation = useNavigation();
  const fetchers = useFetchers();
  const logout = useFetcher();
  const refresh = useFetcher({ key: REFRESH_FETCHER });
  const activeAt = useRef(Date.now());
  const refreshedAt = useRef(Date.now());
  /** One sign-out per page: a late or fast-forwarded timer ticking twice must not send a second one. */
  const signingOut = useRef(false);
  const [expired, setExpired] = useState(false);
  const refreshIdle = refresh.state === "idle";

  // The timer's own refresh is not the user's activity.
  const busy = navigation.state !== "idle" || fetchers.some((f) => f.key !== REFRESH_FETCHER && f.state !== "idle");
  useEffect(() => {
    if (busy) activeAt.current = Date.now();
  }, [busy]);

  useEffect(() => {
    const timer = setInterval(() => {
      const now = Date.now();
      if (now - activeAt.current >= IDLE_TIMEOUT_MS) {
        setExpired(true);
      } else if (now - refreshedAt.current >= REFRESH_INTERVAL_MS) {
        refreshedAt.current = now;
        refresh.submit({ intent: "refresh" }, { method: "post", action: sessionAction });
      }
    }, CHECK_INTERVAL_MS);
    // Like data-hydrated (root.tsx): from here on the page keeps time for the session, which the
    // tests that move the browser's clock wait for (the timers mount after the first page's data).
    document.documentElement.dataset.sessionTimers = "on";
    return () => {
      clearInterval(timer);
      delete document.documentElement.dataset.sessionTimers;
    };
    // The fetchers' submit functions are stable for the life of the component.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  // The sign-out waits for a refresh still under way (its post and the loaders it revalidates): their
  // answers set the session cookie, and one arriving after the sign-out's would sign the browser back
  // in — the page then stayed signed in (or ended at /signin without the notice).
  useEffect(() => {
    if (!expired || !refreshIdle || signingOut.current) return;
    signingOut.current = true;
    logout.submit({ reason: "expired" }, { method: "post", action: logoutAction });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [expired, refreshIdle]);

  return null;
}
