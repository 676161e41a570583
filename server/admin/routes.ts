import * as z from "zod";
import {
  adminGroup,
  adminNotice,
  adminUser,
  createGroupBody,
  createUserBody,
  idParams,
  listQuery,
  memberBody,
  memberParams,
  pageOf,
  resetPasswordBody,
  securitySettings,
  securitySettingsBody,
  sendNoticeBody,
  updateGroupBody,
  updateUserBody,
} from "../../contract/admin";
import type { Accounts } from "../accounts/service";
import { route } from "../http/route";
import type { Notices } from "../notices/service";
import { siteSettings, siteSettingsBody, transferSettings, transferSettingsBody } from "../../contract/settings";
import type { Settings } from "../settings/service";

const empty = z.null();

/** The administrator API (docs/admin-api.md). Every route needs the administrator's access token. */
export function adminRoutes(accounts: Accounts, notices: Notices, settings: Settings) {
  return [
    route({ method: "GET", url: "/api/admin/users", tag: "admin", summary: "List users (search by account or e-mail).", auth: "admin", query: listQuery, response: pageOf(adminUser), handler: ({ query }) => accounts.listUsers(query) }),
    route({ method: "POST", url: "/api/admin/users", tag: "admin", summary: "Create a user. 1004 account exists, 1014 e-mail exists, 1023/4125 password rules.", auth: "admin", body: createUserBody, response: adminUser, handler: ({ body }) => accounts.createUser(body) }),
    route({ method: "GET", url: "/api/admin/users/:id", tag: "admin", summary: "One user.", auth: "admin", params: idParams, response: adminUser, handler: ({ params }) => accounts.getUser(params.id) }),
    route({ method: "PATCH", url: "/api/admin/users/:id", tag: "admin", summary: "Change a user's settings; locking revokes its sessions at once.", auth: "admin", params: idParams, body: updateUserBody, response: adminUser, handler: ({ params, body }) => accounts.updateUser(params.id, body) }),
    route({ method: "POST", url: "/api/admin/users/:id/lock", tag: "admin", summary: "Lock a user and revoke its sessions.", auth: "admin", params: idParams, response: adminUser, handler: ({ params }) => accounts.updateUser(params.id, { locked: true }) }),
    route({ method: "POST", url: "/api/admin/users/:id/unlock", tag: "admin", summary: "Unlock a user (also ends an automatic lockout).", auth: "admin", params: idParams, response: adminUser, handler: ({ params }) => accounts.updateUser(params.id, { locked: false }) }),
    route({
      method: "PUT", url: "/api/admin/users/:id/password", tag: "admin", summary: "Set a user's password (rules apply); revokes its sessions.", auth: "admin", params: idParams, body: resetPasswordBody, response: empty,
      handler: async ({ params, body }) => { await accounts.setPassword(params.id, body.password, body.needUpdatePwd); return null; },
    }),
    route({
      method: "DELETE", url: "/api/admin/users/:id", tag: "admin", summary: "Delete a user (its files stay in its home folder).", auth: "admin", params: idParams, response: empty,
      handler: async ({ params }) => { await accounts.deleteUser(params.id); return null; },
    }),

    route({ method: "GET", url: "/api/admin/groups", tag: "admin", summary: "List groups.", auth: "admin", query: listQuery, response: pageOf(adminGroup), handler: ({ query }) => accounts.listGroups(query) }),
    route({ method: "POST", url: "/api/admin/groups", tag: "admin", summary: "Create a group. 1060 duplicate name.", auth: "admin", body: createGroupBody, response: adminGroup, handler: ({ body }) => accounts.createGroup(body) }),
    route({ method: "GET", url: "/api/admin/groups/:id", tag: "admin", summary: "One group with its members.", auth: "admin", params: idParams, response: adminGroup, handler: ({ params }) => accounts.getGroup(params.id) }),
    route({ method: "PATCH", url: "/api/admin/groups/:id", tag: "admin", summary: "Change a group.", auth: "admin", params: idParams, body: updateGroupBody, response: adminGroup, handler: ({ params, body }) => accounts.updateGroup(params.id, body) }),
    route({
      method: "DELETE", url: "/api/admin/groups/:id", tag: "admin", summary: "Delete an empty group. 1059 when it has members.", auth: "admin", params: idParams, response: empty,
      handler: async ({ params }) => { await accounts.deleteGroup(params.id); return null; },
    }),
    route({ method: "PUT", url: "/api/admin/groups/:id/members/:userId", tag: "admin", summary: "Add a member or set its groupPermission.", auth: "admin", params: memberParams, body: memberBody, response: adminGroup, handler: ({ params, body }) => accounts.setMember(params.id, params.userId, body.groupPermission) }),
    route({ method: "DELETE", url: "/api/admin/groups/:id/members/:userId", tag: "admin", summary: "Remove a member.", auth: "admin", params: memberParams, response: adminGroup, handler: ({ params }) => accounts.removeMember(params.id, params.userId) }),

    route({ method: "GET", url: "/api/admin/notices", tag: "admin", summary: "Sent notifications with receiver and read counts.", auth: "admin", query: listQuery.omit({ search: true }), response: pageOf(adminNotice), handler: ({ query }) => notices.adminList(query.pageNum, query.pageSize) }),
    route({ method: "POST", url: "/api/admin/notices", tag: "admin", summary: "Send a notification to users (ids) or to all users.", auth: "admin", body: sendNoticeBody, response: adminNotice, handler: ({ body }) => notices.send(body) }),
    route({
      method: "DELETE", url: "/api/admin/notices/:id", tag: "admin", summary: "Delete a notification for everyone.", auth: "admin", params: idParams, response: empty,
      handler: async ({ params }) => { await notices.remove(params.id); return null; },
    }),

    route({ method: "GET", url: "/api/admin/settings/security", tag: "admin", summary: "Lockout, password and weak-password settings.", auth: "admin", response: securitySettings, handler: () => settings.get("security") }),
    route({ method: "GET", url: "/api/admin/settings/site", tag: "admin", summary: "Site branding: colours, login-box position, product names, company links.", auth: "admin", response: siteSettings, handler: () => settings.get("site") }),
    route({ method: "PATCH", url: "/api/admin/settings/site", tag: "admin", summary: "Change site branding (position 1–9, colours #RRGGBB).", auth: "admin", body: siteSettingsBody, response: siteSettings, handler: ({ body }) => settings.update("site", body) }),
    route({ method: "GET", url: "/api/admin/settings/transfer", tag: "admin", summary: "File-server switches and limits the clients read from /api/service/info (TCPFileSizeLimit in KB).", auth: "admin", response: transferSettings, handler: () => settings.get("transfer") }),
    route({ method: "PATCH", url: "/api/admin/settings/transfer", tag: "admin", summary: "Change file-server switches and limits (tcpFileSizeLimitKB ≥ 1).", auth: "admin", body: transferSettingsBody, response: transferSettings, handler: ({ body }) => settings.update("transfer", body) }),
    route({ method: "PATCH", url: "/api/admin/settings/security", tag: "admin", summary: "Change security settings (lockTimes 3–30).", auth: "admin", body: securitySettingsBody, response: securitySettings, handler: ({ body }) => settings.update("security", body) }),
  ];
}
