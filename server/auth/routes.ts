import * as z from "zod";
import { accountLookupBody, accountLookupData, loginBody, loginData, passwordUpdateBody, refreshData } from "../../contract/auth";
import { groupListData, userInfo } from "../../contract/users";
import type { Users } from "../users/service";
import { route } from "../http/route";
import type { Auth } from "./service";
import type { Tokens } from "./tokens";

export function authRoutes(auth: Auth, tokens: Tokens, users: Users) {
  return [
    route({
      method: "POST",
      url: "/api/user/login",
      tag: "auth",
      summary: "Sign in with the encoded account and password (UK). 1005 wrong password, 1050 locked, 1074 must reset, 1091 address outside the user's IP whitelist.",
      auth: "public",
      body: loginBody,
      response: loginData,
      handler: ({ body, ip }) => auth.login(body.UK, ip),
    }),
    route({
      method: "PUT",
      url: "/api/user/password/update",
      tag: "auth",
      summary: "Change the password (bearer token) or complete a forced reset (no token). Revokes every session of the account.",
      auth: "optional",
      body: passwordUpdateBody,
      handler: ({ body, auth: ctx, ip }) => auth.updatePassword(body, ctx, ip),
    }),
    route({
      method: "PUT",
      url: "/api/user/auth",
      tag: "auth",
      summary:
        "New access token and refresh token; the refresh token is the bearer and stops working. 1091 from outside the user's IP whitelist. Its reuse after FERRY_REFRESH_REUSE_GRACE revokes the session (1009).",
      auth: "refresh",
      response: refreshData,
      handler: ({ bearer, auth: ctx, ip }) => auth.refresh(bearer!, ctx!, ip),
    }),
    route({
      method: "POST",
      url: "/api/user/logout",
      tag: "auth",
      summary: "Revoke the session of the bearer (access or refresh token).",
      auth: "session",
      handler: async ({ auth: ctx }) => {
        await tokens.revokeSession(ctx!.sessionId);
        return null;
      },
    }),
    route({
      method: "POST",
      url: "/api/user/account/lookup",
      tag: "auth",
      summary: "Resolve an e-mail address to an account name (action get_account). result 0 when resolved.",
      auth: "public",
      body: accountLookupBody,
      response: accountLookupData,
      handler: ({ body, ip }) => auth.lookupAccount(body.email, ip),
    }),
    route({
      method: "GET",
      url: "/api/user/info",
      tag: "user",
      summary: "The signed-in user, with group memberships.",
      auth: "user",
      response: z.object({ user: userInfo }),
      handler: async ({ auth: ctx }) => ({ user: await users.userInfo(ctx!.user.id) }),
    }),
    route({
      method: "GET",
      url: "/api/user/group/list",
      tag: "user",
      summary: "The groups of the signed-in user: name, permission, home size and create time.",
      auth: "user",
      response: groupListData,
      handler: async ({ auth: ctx }) => ({ groupList: await users.groupList(ctx!.user.id) }),
    }),
  ];
}
