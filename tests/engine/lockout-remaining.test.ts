import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestEngine, type TestEngine } from "../support/engine";

/** A lock that ends by itself says when (issue 13, item 13): the sign-in page turns it into minutes left. */
let t: TestEngine;
beforeAll(async () => {
  t = await startTestEngine({ FERRY_TRUSTED_PROXIES: "127.0.0.1", FERRY_LOGIN_ADDRESS_MAX_FAILURES: "4" });
});
afterAll(() => t?.stop());

const from = (ip: string) => ({ "x-forwarded-for": ip });
const nowSeconds = () => Math.ceil(t.clock.now() / 1000);

describe("how long a lock lasts", () => {
  it("a locked account's answer carries the end of the lock and the seconds left, counting down", async () => {
    const reply = await t.call("PATCH", "/api/admin/settings/security", { token: await t.adminToken(), body: { lockTimes: 3, lockMinutes: 10 } });
    expect(reply.body.code).toBe(200);
    const user = await t.createUser("timed_lock");
    for (let i = 1; i <= 2; i++) expect((await t.login("timed_lock", `Wrong#Pass${i}`, from(`10.9.0.${i}`))).body.code).toBe(1005);

    const locking = await t.login("timed_lock", "Wrong#Pass3", from("10.9.0.3"));
    expect(locking.body.code).toBe(1050);
    expect(locking.body.data).toEqual({ lockedUntil: nowSeconds() + 600, retryAfter: 600 });

    t.clock.advance(4 * 60_000 + 30_000);
    const later = await t.login("timed_lock", user.password, from("10.9.0.4"));
    expect(later.body.code).toBe(1050);
    expect(later.body.data).toEqual({ lockedUntil: locking.body.data.lockedUntil, retryAfter: 330 });
    t.clock.advance(6 * 60_000);
    expect((await t.login("timed_lock", user.password, from("10.9.0.5"))).body.code).toBe(200);
  });

  it("an administrator's lock has no end, so its answer names none", async () => {
    const user = await t.createUser("admin_locked");
    const locked = await t.call("POST", `/api/admin/users/${user.id}/lock`, { token: await t.adminToken() });
    expect(locked.body.code).toBe(200);
    const reply = await t.login("admin_locked", user.password, from("10.9.1.1"));
    expect(reply.body).toMatchObject({ code: 1050, data: null });
  });

  it("a locked address says how long too", async () => {
    for (let i = 1; i <= 3; i++) expect((await t.login(`nobody_${i}`, "Wrong#Pass1", from("10.9.2.1"))).body.code).toBe(1005);
    const locking = await t.login("nobody_4", "Wrong#Pass1", from("10.9.2.1"));
    expect(locking.body.code).toBe(4116);
    expect(locking.body.data.retryAfter).toBeGreaterThan(0);
    expect(locking.body.data.lockedUntil).toBe(nowSeconds() + locking.body.data.retryAfter);
  });
});
