import {
  adminUser,
  createUserBody,
  idParams,
  userListQuery,
  pageOf,
  resetPasswordBody,
  updateUserBody,
} from "../../contract/admin";
import { nullData, route } from "../http/route";
import type { Users } from "./service";

/** The administrator API of users (docs/admin-api.md). Every route needs the administrator's access token. */
export function userRoutes(users: Users) {
  return [
    route({ method: "GET", url: "/api/admin/users", tag: "admin", summary: "List users (search by account or e-mail; orderBy account, fullname or createTime, order asc or desc).", auth: "admin", query: userListQuery, response: pageOf(adminUser), handler: ({ query }) => users.listUsers(query) }),
    route({ method: "POST", url: "/api/admin/users", tag: "admin", summary: "Create a user. 1004 account exists, 1014 e-mail exists, 1023/4125 password rules.", auth: "admin", body: createUserBody, response: adminUser, handler: ({ body }) => users.createUser(body) }),
    route({ method: "GET", url: "/api/admin/users/:id", tag: "admin", summary: "One user.", auth: "admin", params: idParams, response: adminUser, handler: ({ params }) => users.getUser(params.id) }),
    route({ method: "PATCH", url: "/api/admin/users/:id", tag: "admin", summary: "Change a user's settings; locking revokes its sessions at once.", auth: "admin", params: idParams, body: updateUserBody, response: adminUser, handler: ({ params, body }) => users.updateUser(params.id, body) }),
    route({ method: "POST", url: "/api/admin/users/:id/lock", tag: "admin", summary: "Lock a user and revoke its sessions.", auth: "admin", params: idParams, response: adminUser, handler: ({ params }) => users.updateUser(params.id, { locked: true }) }),
    route({ method: "POST", url: "/api/admin/users/:id/unlock", tag: "admin", summary: "Unlock a user (also ends an automatic lockout).", auth: "admin", params: idParams, response: adminUser, handler: ({ params }) => users.updateUser(params.id, { locked: false }) }),
    route({
      method: "PUT", url: "/api/admin/users/:id/password", tag: "admin", summary: "Set a user's password (rules apply); revokes its sessions.", auth: "admin", params: idParams, body: resetPasswordBody, response: nullData,
      handler: async ({ params, body }) => { await users.setPassword(params.id, body.password, body.needUpdatePwd); return null; },
    }),
    route({
      method: "DELETE", url: "/api/admin/users/:id", tag: "admin", summary: "Delete a user (its files stay in its home folder).", auth: "admin", params: idParams, response: nullData,
      handler: async ({ params }) => { await users.deleteUser(params.id); return null; },
    }),
  ];
}
