import * as z from "zod";
import { idParams, pageOf } from "../../../contract/admin";
import { adminStorage, storageBody, storageChoice, storageListQuery, storageTestBody, storageTestResult, updateStorageBody } from "../../../contract/storage";
import { nullData, route } from "../../http/route";
import type { StorageAdmin } from "./service";

/** The administrator API of storages (docs/admin-api.md, "Storages"). Every route needs the administrator's access token; no answer carries a credential. */
export function storageAdminRoutes(storages: StorageAdmin) {
  return [
    route({ method: "GET", url: "/api/admin/storages", tag: "admin", summary: "List storages (search by name), oldest first. Credentials are never answered: only accessKeyIdSet, secretAccessKeySet, connectionStringSet.", auth: "admin", query: storageListQuery, response: pageOf(adminStorage), handler: ({ query }) => storages.list(query) }),
    route({ method: "GET", url: "/api/admin/storages/choices", tag: "admin", summary: "Every storage as a choice of the user and group forms (id, name, provider, isDefault).", auth: "admin", response: z.array(storageChoice), handler: () => storages.choices() }),
    route({ method: "POST", url: "/api/admin/storages", tag: "admin", summary: "Add a storage. 4150 bad name, 4009 name taken, 4149 unknown type, 4151 config refused, 4143 slice size, 4156 path format.", auth: "admin", body: storageBody, response: adminStorage, handler: ({ body }) => storages.add(body) }),
    route({ method: "POST", url: "/api/admin/storages/test", tag: "admin", summary: "Test a connection: write a probe object, read it back, delete it. Unsaved fields, or with id a saved storage (its stored secrets fill empty ones). 4152 connection failed, 4154 path lost.", auth: "admin", body: storageTestBody, response: storageTestResult, handler: ({ body }) => storages.test(body) }),
    route({ method: "GET", url: "/api/admin/storages/:id", tag: "admin", summary: "One storage. 4004 when there is none.", auth: "admin", params: idParams, response: adminStorage, handler: ({ params }) => storages.get(params.id) }),
    route({ method: "PATCH", url: "/api/admin/storages/:id", tag: "admin", summary: "Change a storage; empty secrets keep the stored ones. 4006 moving the default storage (provider, path, endpoint, bucket, container); 4620 changing the provider of a storage in use.", auth: "admin", params: idParams, body: updateStorageBody, response: adminStorage, handler: ({ params, body }) => storages.update(params.id, body) }),
    route({
      method: "DELETE", url: "/api/admin/storages/:id", tag: "admin", summary: "Delete a storage. 4005 the default storage; 4620 while a user or group home or a virtual directory is on it.", auth: "admin", params: idParams, response: nullData,
      handler: async ({ params }) => { await storages.remove(params.id); return null; },
    }),
    route({ method: "PUT", url: "/api/admin/storages/:id/default", tag: "admin", summary: "Make a storage the default one (new homes made without a choice go there).", auth: "admin", params: idParams, response: adminStorage, handler: ({ params }) => storages.setDefault(params.id) }),
  ];
}
