import { useRevalidator } from "@remix-run/react";
import { useEffect, useRef } from "react";
import { useFileConnection } from "../../files/file-server-context";

/**
 * Keeps the bell and the notification list current: when the engine pushes a notice event on the
 * file server's socket (a notice sent, read or deleted), the page's data is loaded again, without
 * navigating. Renders nothing.
 */
export function LiveNotices() {
  const connection = useFileConnection();
  const { revalidate } = useRevalidator();
  // revalidate changes identity with each navigation state; the listener reads the latest.
  const reload = useRef(revalidate);
  reload.current = revalidate;
  useEffect(() => connection?.onEvent((event) => event.event === "notice" && reload.current()), [connection]);
  // Events pushed while the socket was down are lost: after a reconnect, load the page's data again.
  useEffect(() => {
    if (!connection) return;
    let wasOpen = connection.state === "open";
    return connection.subscribe(() => {
      if (connection.state !== "open") return;
      if (wasOpen) reload.current();
      wasOpen = true;
    });
  }, [connection]);
  return null;
}
