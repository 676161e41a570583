import { useFetcher } from "@remix-run/react";
import { createContext, useContext, useEffect, useRef, useState, type ReactNode } from "react";
import type { FileConnection } from "./connection.client";

/** What `_app.tsx`'s loader hands the browser to reach the file server (docs/file-server.md). */
export interface FileServerInfo {
  /** The sign-in's socket token: only the file server accepts it (REST refuses it). */
  token: string;
  /** A fixed base URL of the file server, when one is configured; otherwise built from host and ports. */
  httpUrl?: string;
  port: number;
  sslPort: number;
  /** Empty: the page's own host (spec section 3, server info). */
  host: string;
  /** A share visitor's token (the share page): the socket logs in as a share session. */
  share?: boolean;
}

export interface FileServerValue {
  info: FileServerInfo;
  /** Largest file the server takes in one transfer, bytes (TCPFileSizeLimit × 1024). */
  tcpFileSizeLimit: number;
  /** Server switch for sync folders (spec section 6: sync needs it). */
  syncSwitch: boolean;
  /** How the web uploads (the Transfer protocol and transfer settings, /api/service/info); the engine enforces the same. */
  uploads: UploadSettings;
}

/** The administrator's upload settings as the web uploader follows them (docs/file-server.md, "Part size and parallel uploads"). */
export interface UploadSettings {
  /** Files uploading at once (parallelUploads). */
  parallel: number;
  /** MB per tus PATCH; 0 the whole file in one request (uploadPartMB). */
  partMB: number;
  /** The browser hashes each file and the commit carries the hash (cHashVerifySwitch). */
  hashCheck: boolean;
  /** A batch over this many MB suggests the desktop client; 0 never (clientPromptMB). */
  clientPromptMB: number;
}

/** The upload settings of /api/service/info's `server`. */
export const uploadSettingsOf = (server: { parallelUploads: number; uploadPartMB: number; cHashVerifySwitch: boolean; clientPromptMB: number }): UploadSettings => ({
  parallel: server.parallelUploads,
  partMB: server.uploadPartMB,
  hashCheck: server.cHashVerifySwitch,
  clientPromptMB: server.clientPromptMB,
});

interface ContextValue extends FileServerValue {
  connection: FileConnection | null;
}

const FileServerContext = createContext<ContextValue | null>(null);

/**
 * One connection per page load, opened after hydration: the connection module is client-only, so it
 * is loaded with a dynamic import and the server render (and the first client render) see null.
 */
export function FileServerProvider({ value, children, onInvalidToken }: { value: FileServerValue; children: ReactNode; onInvalidToken?: () => void }) {
  const [connection, setConnection] = useState<FileConnection | null>(null);
  const { token, httpUrl, port, sslPort, host, share } = value.info;
  const logout = useFetcher();
  // The fetcher's submit is stable, but read it through a ref so the effect does not depend on it.
  // The share page passes its own handler: a refused share token never means signing out.
  const signOut = useRef(() => logout.submit({ reason: "expired" }, { method: "post", action: "/logout" }));
  const invalidToken = useRef(onInvalidToken);
  invalidToken.current = onInvalidToken;
  useEffect(() => {
    let live = true;
    let opened: FileConnection | null = null;
    void import("./connection.client").then(({ FileConnection: Connection }) => {
      if (!live) return;
      opened = new Connection({ token, httpUrl, port, sslPort, host, share }, window.location, {
        // Only a page still showing the shell signs out; one being left already ended the sign-in itself.
        onInvalidToken: () => live && (invalidToken.current ?? signOut.current)(),
      });
      setConnection(opened);
    });
    return () => {
      live = false;
      opened?.close();
    };
  }, [token, httpUrl, port, sslPort, host, share]);
  return <FileServerContext.Provider value={{ ...value, connection }}>{children}</FileServerContext.Provider>;
}

/** The page's file-server connection; null during server rendering, before hydration and outside the signed-in shell. */
export function useFileConnection(): FileConnection | null {
  return useContext(FileServerContext)?.connection ?? null;
}

/** The file server's settings of the signed-in shell (limits, switches); null outside it. */
export function useFileServer(): ContextValue | null {
  return useContext(FileServerContext);
}

/** Re-renders on every state change of the connection; returns its state. */
export function useConnectionState(connection: FileConnection | null): FileConnection["state"] | null {
  const [, setTick] = useState(0);
  useEffect(() => connection?.subscribe(() => setTick((n) => n + 1)), [connection]);
  return connection?.state ?? null;
}
