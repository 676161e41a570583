import { describe, expect, it } from "vitest";
import { isLowVersion, type NoticeInputs, selectNoticeState } from "./notice-state";
import { LOCAL_PROTOCOL_VERSION } from "./protocol";

const connected = (version: string, extra: { protocol?: string; latest?: string } = {}): NoticeInputs["local"] => ({
  status: "connected",
  port: 9527,
  protocol: extra.protocol ?? LOCAL_PROTOCOL_VERSION,
  version,
  ...(extra.latest ? { latest: extra.latest } : {}),
});
const base: NoticeInputs = { local: { status: "searching", tries: 0 }, fileServer: "open", starting: false, invite: true, minVersion: "3.2.0" };

describe("isLowVersion", () => {
  it("compares dotted versions number by number, not as text", () => {
    expect(isLowVersion({ protocol: LOCAL_PROTOCOL_VERSION, version: "3.10.0" }, "3.9.9")).toBe(false);
    expect(isLowVersion({ protocol: LOCAL_PROTOCOL_VERSION, version: "3.9.9" }, "3.10.0")).toBe(true);
    expect(isLowVersion({ protocol: LOCAL_PROTOCOL_VERSION, version: "3.2" }, "3.2.0")).toBe(false);
    expect(isLowVersion({ protocol: LOCAL_PROTOCOL_VERSION, version: "3.1.99" }, "3.2.0")).toBe(true);
  });
  it("counts a client speaking an older handshake protocol as too old", () => {
    expect(isLowVersion({ protocol: "0.9", version: "9.0.0" }, "3.2.0")).toBe(true);
  });
});

describe("selectNoticeState", () => {
  it("shows nothing before the page knows anything (server render, before hydration)", () => {
    expect(selectNoticeState({ ...base, local: null, fileServer: "down" })).toBeNull();
  });
  it("invites to start the client while none answers, also after the page gave up looking", () => {
    expect(selectNoticeState(base)).toBe("start-client");
    expect(selectNoticeState({ ...base, local: { status: "searching", tries: 12 }, fileServer: "pending" })).toBe("start-client");
    expect(selectNoticeState({ ...base, local: { status: "gave-up" } })).toBe("start-client");
  });
  it("invites nobody when there is no client to offer or the user dismissed the invitation; other news still shows", () => {
    expect(selectNoticeState({ ...base, invite: false })).toBeNull();
    expect(selectNoticeState({ ...base, invite: false, starting: true })).toBeNull();
    expect(selectNoticeState({ ...base, invite: false, fileServer: "down" })).toBe("disconnect");
    expect(selectNoticeState({ ...base, invite: false, local: connected("3.1.9") })).toBe("low-version");
    expect(selectNoticeState({ ...base, invite: false, local: connected("3.2.0", { latest: "3.10.0" }) })).toBe("update");
  });
  it("shows starting while the user's start request is pending", () => {
    expect(selectNoticeState({ ...base, starting: true })).toBe("starting");
  });
  it("shows disconnect when neither the client nor the file server is connected, above every other state", () => {
    expect(selectNoticeState({ ...base, fileServer: "down" })).toBe("disconnect");
    expect(selectNoticeState({ ...base, fileServer: "down", starting: true })).toBe("disconnect");
  });
  it("judges a connected client by its version, whatever the file server does", () => {
    expect(selectNoticeState({ ...base, local: connected("3.2.0"), fileServer: "down" })).toBeNull();
    expect(selectNoticeState({ ...base, local: connected("3.1.9") })).toBe("low-version");
    expect(selectNoticeState({ ...base, local: connected("3.2.0", { latest: "3.10.0" }) })).toBe("update");
    expect(selectNoticeState({ ...base, local: connected("3.2.0", { latest: "3.2.0" }) })).toBeNull();
    // Too old wins over an update being available: the client cannot be used at all.
    expect(selectNoticeState({ ...base, local: connected("2.0.0", { latest: "3.10.0" }) })).toBe("low-version");
  });
});
