import { useEffect, useState } from "react";
import { useFileConnection } from "../files/file-server-context";
import { useShellUser } from "../files/use-shell-user";
import { useTransfers } from "../transfers/use-transfers";
import type { P2pSession } from "./peer.client";

/**
 * The page's P2P session, once the file server's socket is there: the session module is client-only
 * (WebRTC, workers), so it is loaded with a dynamic import and the server render sees null.
 */
export function useP2pSession(): P2pSession | null {
  const connection = useFileConnection();
  const account = useShellUser()?.account ?? "";
  const { upload } = useTransfers();
  const [session, setSession] = useState<P2pSession | null>(null);
  useEffect(() => {
    if (!connection || !account) return;
    let live = true;
    void import("./peer.client").then(({ p2pSession }) => {
      if (live) setSession(p2pSession(connection, account, upload));
    });
    return () => {
      live = false;
    };
  }, [connection, account, upload]);
  return session;
}
