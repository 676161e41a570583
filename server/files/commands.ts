import type { FileServerPart } from "../fileserver/parts";
import { createFileService } from "./service";
import { uploadRulesOf } from "./upload-rules";

/**
 * The file server's file commands (docs/file-server.md, "Commands"): socket.ts has parsed and
 * authenticated the request; the service checks the space, the permission and the paths.
 */
export const fileCommandParts: FileServerPart = (services) => {
  const files = createFileService(services);
  return {
    handlers: [],
    commands: {
      list: (s, a) => files.list(s.user.id, a.groupId, a.path),
      mkdir: (s, a) => files.mkdir(s.user.id, a.groupId, a.path, a.name),
      rename: (s, a) => files.rename(s.user.id, a.groupId, a.path, a.newName),
      exists: (s, a) => files.exists(s.user.id, a.groupId, a.target, a.names),
      move: (s, a) => files.move(s.user.id, a.groupId, a.paths, a.target, a.overwrite, s.signal),
      copy: (s, a) => files.copy(s.user.id, a.groupId, a.paths, a.target, a.overwrite, s.signal),
      remove: (s, a) => files.remove(s.user.id, a.groupId, a.paths),
      attributes: (s, a) => files.attributes(s.user.id, a.groupId, a.paths, s.signal),
      tree: (s, a) => files.tree(s.user.id, a.groupId, a.path),
      search: (s, a) => files.search(s.user.id, a.groupId, a.path, a.keyword, a.limit, s.signal),
      uploadRules: (s, a) => uploadRulesOf(services, s.user.id, a.groupId),
    },
  };
};
