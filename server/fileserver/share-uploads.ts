import type { IncomingMessage } from "node:http";
import type { Upload } from "@tus/server";
import type { Lang } from "../../contract/envelope";
import { FerryError } from "../errors";
import { rulesOf } from "../files/upload-rules";
import type { Services } from "../services";
import { type ShareAccess, visitorToOwnerPath } from "../shares/access";
import { checkTargetFree, isOwner, parseTarget, reserveQuota, SHARE_LINK_KEY, sizeLimit, storedMetadata, uploadSpace } from "../uploads/checks";
import type { UploadStore } from "../uploads/store";

/**
 * tus uploads of share-link visitors (docs/file-server.md, "Share visitors"), for server/uploads/tus.ts:
 * a request whose bearer is a share token of an upload invitation. The link is checked again at
 * every request (creation, every PATCH, HEAD, DELETE), so cancelling, deleting or expiring it stops
 * a pending upload at once. Targets are the visitor's paths inside the invitation folder, mapped
 * into the owner's personal space; the owner's Upload bit, forbidden paths, size limit and quota
 * apply. A visitor never replaces a file (no overwrite).
 * An upload created here is bound to the link (checks.ts SHARE_LINK_KEY); it is committed through
 * the share session's `commit` (share-socket.ts).
 */

const UPLOAD_ID = /^[0-9a-f]{32}$/;

export interface UploadVisitor {
  access: ShareAccess;
  lang: Lang;
}

export function createVisitorUploads(services: Services, store: UploadStore) {
  const visitors = new WeakMap<object, UploadVisitor>();

  return {
    /** The visitor a request was admitted for, or null (a signed-in user's request). */
    callerOf: (req: object): UploadVisitor | null => visitors.get(req) ?? null,

    /** Checks a visitor's request before tus handles it; the refusal, or null when admitted. */
    async admit(req: IncomingMessage, id: string, token: string, lang: Lang): Promise<FerryError | null> {
      const checked = await services.shares.access.checkToken(token);
      if ("error" in checked) return new FerryError(checked.error);
      const { access } = checked;
      if (access.kind !== "upload") return new FerryError("PermissionDenied");
      if (req.method === "POST") {
        if (id !== "" || req.headers["upload-defer-length"] !== undefined) return new FerryError("UnsupportedOperation");
      } else {
        if (!UPLOAD_ID.test(id)) return new FerryError("UploadNotFound");
        const record = await store.records.get(id);
        if (!record) return new FerryError("UploadNotFound");
        if (!isOwner(record, access.ownerId, access.linkId)) return new FerryError("PermissionDenied");
        if (req.method === "PATCH") {
          try {
            await uploadSpace(services, access.ownerId, 0);
          } catch (error) {
            if (error instanceof FerryError) return error;
            throw error;
          }
        }
      }
      visitors.set(req, { access, lang });
      return null;
    },

    /** The stored metadata of a visitor's new upload: the owner's path inside the invitation folder, bound to the link. */
    async metadata(access: ShareAccess, upload: Upload): Promise<Record<string, string>> {
      const sent = parseTarget(upload.metadata);
      // The share is the visitor's only space, and a visitor never replaces what is there.
      if (sent.groupId !== 0 || sent.overwrite) throw new FerryError("PermissionDenied");
      const mapped = visitorToOwnerPath(access, sent.path);
      if (!mapped || mapped.root) throw new FerryError("PermissionDenied");
      const target = { groupId: 0, path: mapped.path, overwrite: false };
      const space = await uploadSpace(services, access.ownerId, 0);
      const limit = await sizeLimit(services);
      if ((upload.size ?? 0) > limit) throw new FerryError("FileTooLarge", { limit }, { limit });
      // The owner's rules: a visitor uploads into the owner's space (and never replaces a file).
      await checkTargetFree(space, target, await rulesOf(services.db, access.ownerId, space), upload.size);
      // Counts against the owner's quota from now on, like the owner's own uploads.
      await reserveQuota(services, upload.id, access.ownerId, space, target, upload.size ?? 0);
      return { ...storedMetadata({ ...target, filetype: sent.filetype }, access.ownerId, space), [SHARE_LINK_KEY]: access.linkId };
    },
  };
}
