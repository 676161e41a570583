import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Permission } from "../../contract/permissions";
import { startTestEngine, type TestEngine } from "../support/engine";

/**
 * The console's lists sort in the database before the page is cut: page 2 goes on where page 1
 * stopped, in either direction, on every database (FERRY_TEST_DB=sqlite|postgres|mysql).
 */
let t: TestEngine;
let admin: string;
beforeAll(async () => {
  t = await startTestEngine();
  admin = await t.adminToken();
});
afterAll(() => t?.stop());

/** Every page of a list, `size` rows at a time, joined: what paging through the console shows. */
async function allPages(path: string, query: Record<string, string>, size: number, name: (row: Record<string, unknown>) => string) {
  const seen: string[] = [];
  for (let page = 1; ; page++) {
    const q = new URLSearchParams({ ...query, pageNum: String(page), pageSize: String(size) });
    const reply = await t.call("GET", `${path}?${q.toString()}`, { token: admin });
    expect(reply.body.code).toBe(200);
    const data = reply.body.data as { list: Array<Record<string, unknown>>; total: number };
    seen.push(...data.list.map(name));
    if (page * size >= data.total) return seen;
  }
}

describe("GET /api/admin/users sorted", () => {
  // Made in this order (ids ascending). Accounts and names out of id order; one account in capitals
  // and one name capitalised, which a case-sensitive order would put first; two names equal but for
  // case and two users made in the same millisecond, whose ties go by id.
  const made = [
    { account: "SRT_c", fullname: "bravo" },
    { account: "srt_e", fullname: "Delta" },
    { account: "srt_a", fullname: "echo" },
    { account: "srt_d", fullname: "alpha" },
    { account: "srt_b", fullname: "Bravo" },
  ];
  beforeAll(async () => {
    for (const [i, user] of made.entries()) {
      if (i < 4) t.clock.advance(2000);
      const reply = await t.call("POST", "/api/admin/users", { token: admin, body: { ...user, password: "Str0ng#Pass", needUpdatePwd: false } });
      expect(reply.body.code).toBe(200);
    }
  });
  const accounts = (query: Record<string, string>) => allPages("/api/admin/users", { search: "srt", ...query }, 2, (u) => u.account as string);

  it("orders by account, case-insensitively, across pages and both ways", async () => {
    expect(await accounts({ orderBy: "account" })).toEqual(["srt_a", "srt_b", "SRT_c", "srt_d", "srt_e"]);
    expect(await accounts({ orderBy: "account", order: "asc" })).toEqual(["srt_a", "srt_b", "SRT_c", "srt_d", "srt_e"]);
    expect(await accounts({ orderBy: "account", order: "desc" })).toEqual(["srt_e", "srt_d", "SRT_c", "srt_b", "srt_a"]);
  });

  it("orders by full name, case-insensitively, equal names by id in the same direction", async () => {
    expect(await accounts({ orderBy: "fullname", order: "asc" })).toEqual(["srt_d", "SRT_c", "srt_b", "srt_e", "srt_a"]);
    expect(await accounts({ orderBy: "fullname", order: "desc" })).toEqual(["srt_a", "srt_e", "srt_b", "SRT_c", "srt_d"]);
  });

  it("orders by create time, the same millisecond by id", async () => {
    expect(await accounts({ orderBy: "createTime", order: "asc" })).toEqual(made.map((u) => u.account));
    expect(await accounts({ orderBy: "createTime", order: "desc" })).toEqual(made.map((u) => u.account).reverse());
    const listed = (await t.call("GET", "/api/admin/users?search=srt&orderBy=createTime", { token: admin })).body.data.list as Array<{ createTime: number }>;
    expect(listed[3]!.createTime).toBe(listed[4]!.createTime);
  });

  it("keeps the id order without orderBy", async () => {
    expect(await accounts({})).toEqual(made.map((u) => u.account));
  });

  it("refuses a field it does not sort by, and an unknown direction", async () => {
    for (const query of ["orderBy=email", "orderBy=password_hash", "orderBy=account_key", "orderBy=space", "orderBy=", "orderBy=account&order=up", "orderBy=account&order=ASC", "orderBy=name"]) {
      const reply = await t.call("GET", `/api/admin/users?${query}`, { token: admin });
      expect({ query, code: reply.body.code }).toEqual({ query, code: 400 });
    }
  });
});

describe("GET /api/admin/groups sorted", () => {
  // Ids ascending in this order; members: b 2, a 0, c 1, d 2 (a tie with b, by id).
  const made = [
    { name: "Srtg_b", members: 2 },
    { name: "srtg_a", members: 0 },
    { name: "srtg_c", members: 1 },
    { name: "srtg_d", members: 2 },
  ];
  beforeAll(async () => {
    const users: number[] = [];
    for (const account of ["grpm_1", "grpm_2"]) {
      const reply = await t.call("POST", "/api/admin/users", { token: admin, body: { account, password: "Str0ng#Pass", needUpdatePwd: false } });
      users.push(reply.body.data.id as number);
    }
    for (const group of made) {
      t.clock.advance(2000);
      const reply = await t.call("POST", "/api/admin/groups", { token: admin, body: { name: group.name } });
      expect(reply.body.code).toBe(200);
      for (const userId of users.slice(0, group.members)) {
        const added = await t.call("PUT", `/api/admin/groups/${reply.body.data.id}/members/${userId}`, { token: admin, body: { groupPermission: Permission.List } });
        expect(added.body.code).toBe(200);
      }
    }
  });
  const names = (query: Record<string, string>) => allPages("/api/admin/groups", { search: "srtg", ...query }, 3, (g) => g.name as string);

  it("orders by name, case-insensitively, across pages and both ways", async () => {
    expect(await names({ orderBy: "name" })).toEqual(["srtg_a", "Srtg_b", "srtg_c", "srtg_d"]);
    expect(await names({ orderBy: "name", order: "desc" })).toEqual(["srtg_d", "srtg_c", "Srtg_b", "srtg_a"]);
  });

  it("orders by the count of members, equal counts by id in the same direction", async () => {
    expect(await names({ orderBy: "members", order: "asc" })).toEqual(["srtg_a", "srtg_c", "Srtg_b", "srtg_d"]);
    expect(await names({ orderBy: "members", order: "desc" })).toEqual(["srtg_d", "Srtg_b", "srtg_c", "srtg_a"]);
  });

  it("orders by create time, and by id without orderBy", async () => {
    expect(await names({ orderBy: "createTime", order: "asc" })).toEqual(made.map((g) => g.name));
    expect(await names({ orderBy: "createTime", order: "desc" })).toEqual(made.map((g) => g.name).reverse());
    expect(await names({})).toEqual(made.map((g) => g.name));
  });

  it("refuses a field it does not sort by", async () => {
    for (const query of ["orderBy=account", "orderBy=home", "orderBy=name_key", "orderBy=name&order=descending"]) {
      const reply = await t.call("GET", `/api/admin/groups?${query}`, { token: admin });
      expect({ query, code: reply.body.code }).toEqual({ query, code: 400 });
    }
  });
});
