import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codec, startTestEngine, type TestEngine } from "../support/engine";

let t: TestEngine;
let admin: string;
beforeAll(async () => {
  t = await startTestEngine();
  admin = await t.adminToken();
});
afterAll(() => t?.stop());

const userCount = async () => (await t.call("GET", "/api/admin/users", { token: admin })).body.data.total as number;

describe("bad input gets a 400-family code and changes nothing", () => {
  it("wrong types → 402, missing fields → 401, unknown fields → 400", async () => {
    const before = await userCount();
    const cases: Array<[unknown, number]> = [
      [{ account: 42, password: "Str0ng#Pass" }, 402],
      [{ account: "zed", password: ["Str0ng#Pass"] }, 402],
      [{ account: "zed", password: "Str0ng#Pass", permission: "all" }, 402],
      [{ account: "zed" }, 401],
      [{ password: "Str0ng#Pass" }, 401],
      [{ account: "zed", password: "Str0ng#Pass", isAdmin: true }, 400],
      [{ account: "zed", password: "Str0ng#Pass", permission: -1 }, 400],
      [{ account: "zed", password: "Str0ng#Pass", permission: 1 << 20 }, 400],
      [[], 402],
      ["zed", 402],
    ];
    for (const [body, code] of cases) {
      const reply = await t.call("POST", "/api/admin/users", { token: admin, body });
      expect({ body, code: reply.body.code, status: reply.status }).toEqual({ body, code, status: 400 });
      expect(reply.body.result).toBe(false);
    }
    expect(await userCount()).toBe(before);
  });

  it("malformed JSON and a wrong content type are refused; an empty JSON body is {} (401 where a field is required)", async () => {
    const before = await userCount();
    const malformed = await t.call("POST", "/api/admin/users", { token: admin, raw: '{"account": "zed",' });
    expect(malformed.body.code).toBe(400);
    const text = await t.call("POST", "/api/admin/users", { token: admin, raw: "account=zed", headers: { "content-type": "text/plain" } });
    expect(text.body.code).toBe(400);
    const empty = await t.call("POST", "/api/user/login", { raw: "", headers: { "content-type": "application/json" } });
    expect(empty.body.code).toBe(401);
    const proto = await t.call("POST", "/api/admin/users", { token: admin, raw: '{"account":"zed","password":"Str0ng#Pass","__proto__":{"role":"admin"}}' });
    expect(proto.body.code).toBe(400);
    expect(await userCount()).toBe(before);
  });

  it("a body over the limit is refused before it is read", async () => {
    const huge = JSON.stringify({ UK: "a".repeat(2 * 1024 * 1024) });
    const reply = await t.call("POST", "/api/user/login", { raw: huge });
    expect(reply.status).toBe(413);
    expect(reply.body).toMatchObject({ code: 4280, result: false });
    const long = await t.call("POST", "/api/user/login", { body: { UK: "a".repeat(5000) } });
    expect(long.body.code).toBe(400);
  });

  it("bad query values are refused", async () => {
    const user = await t.createUser("querier");
    expect((await t.call("GET", "/api/notice/list?pageSize=abc", { token: user.token })).body.code).toBe(402);
    expect((await t.call("GET", "/api/notice/list?pageSize=1000", { token: user.token })).body.code).toBe(400);
    expect((await t.call("GET", "/api/notice/list?pageNum=0", { token: user.token })).body.code).toBe(400);
    expect((await t.call("GET", "/api/notice/list?debug=1", { token: user.token })).body.code).toBe(400);
    expect((await t.call("PATCH", "/api/notice/status/update", { token: user.token, body: { noticeIds: "1" } })).body.code).toBe(402);
    expect((await t.call("PATCH", "/api/notice/status/update", { token: user.token, body: { noticeIds: [] } })).body.code).toBe(400);
  });

  it("a refused password update leaves the password as it was", async () => {
    const user = await t.createUser("keeper");
    const attempts = [
      { account: "keeper", oldPassword: codec.encode(user.password), newPassword: codec.encode("Newer#Pass1"), extra: 1 },
      { account: "keeper", oldPassword: codec.encode(user.password) },
      { account: "keeper", oldPassword: "not encoded!", newPassword: codec.encode("Newer#Pass1") },
      { account: "keeper", oldPassword: codec.encode(user.password), newPassword: 12345678 },
    ];
    for (const body of attempts) {
      const reply = await t.call("PUT", "/api/user/password/update", { token: user.token, body });
      expect([400, 401, 402]).toContain(reply.body.code);
    }
    expect((await t.login("keeper", user.password)).body.code).toBe(200);
    expect((await t.login("keeper", "Newer#Pass1")).body.code).toBe(1005);
  });
});
