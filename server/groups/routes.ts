import {
  adminGroup,
  createGroupBody,
  idParams,
  groupListQuery,
  memberBody,
  memberParams,
  pageOf,
  updateGroupBody,
} from "../../contract/admin";
import { nullData, route } from "../http/route";
import type { Groups } from "./service";

/** The administrator API of groups and their members (docs/admin-api.md). Every route needs the administrator's access token. */
export function groupRoutes(groups: Groups) {
  return [
    route({ method: "GET", url: "/api/admin/groups", tag: "admin", summary: "List groups (search by name; orderBy name, createTime or members, order asc or desc).", auth: "admin", query: groupListQuery, response: pageOf(adminGroup), handler: ({ query }) => groups.listGroups(query) }),
    route({ method: "POST", url: "/api/admin/groups", tag: "admin", summary: "Create a group. 1060 duplicate name.", auth: "admin", body: createGroupBody, response: adminGroup, handler: ({ body }) => groups.createGroup(body) }),
    route({ method: "GET", url: "/api/admin/groups/:id", tag: "admin", summary: "One group with its members.", auth: "admin", params: idParams, response: adminGroup, handler: ({ params }) => groups.getGroup(params.id) }),
    route({ method: "PATCH", url: "/api/admin/groups/:id", tag: "admin", summary: "Change a group.", auth: "admin", params: idParams, body: updateGroupBody, response: adminGroup, handler: ({ params, body }) => groups.updateGroup(params.id, body) }),
    route({
      method: "DELETE", url: "/api/admin/groups/:id", tag: "admin", summary: "Delete an empty group. 1059 when it has members.", auth: "admin", params: idParams, response: nullData,
      handler: async ({ params }) => { await groups.deleteGroup(params.id); return null; },
    }),
    route({ method: "PUT", url: "/api/admin/groups/:id/members/:userId", tag: "admin", summary: "Add a member or set its groupPermission.", auth: "admin", params: memberParams, body: memberBody, response: adminGroup, handler: ({ params, body }) => groups.setMember(params.id, params.userId, body.groupPermission) }),
    route({ method: "DELETE", url: "/api/admin/groups/:id/members/:userId", tag: "admin", summary: "Remove a member.", auth: "admin", params: memberParams, response: adminGroup, handler: ({ params }) => groups.removeMember(params.id, params.userId) }),
  ];
}
