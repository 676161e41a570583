import { PERMISSION_FULL } from "../../contract/permissions";
import type { TestEngine } from "./engine";
import { connectFiles, type FileClient } from "./file-client";

export type SocketUser = Awaited<ReturnType<TestEngine["createUser"]>> & { files: FileClient };

/**
 * Users of an engine test, each made with full permission (unless `options` say otherwise) and signed
 * in on the file server; `keep` adds another socket (a visitor's) to those `close` closes at the end.
 */
export function socketUsers(engine: () => TestEngine) {
  const sockets: FileClient[] = [];
  return {
    async userWith(account: string, options: Record<string, unknown> = {}): Promise<SocketUser> {
      const t = engine();
      const created = await t.createUser(account, { permission: PERMISSION_FULL, ...options });
      const files = await connectFiles(t.fileUrl, created.socketToken);
      sockets.push(files);
      return { ...created, files };
    },
    keep(socket: FileClient): FileClient {
      sockets.push(socket);
      return socket;
    },
    async close(): Promise<void> {
      for (const s of sockets.splice(0)) await s.close();
    },
  };
}
