import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { RECONNECT_DELAY_MS, RECONNECT_MAX_TRIES } from "../files/connection.client";
import { LocalClientProbe } from "./probe.client";
import { CHECK_TIMEOUT_MS, LOCAL_PROTOCOL_VERSION } from "./protocol";

/** A stand-in for the browser's WebSocket: the test decides which port answers and what. */
class FakeSocket {
  static made: FakeSocket[] = [];
  /** Every new socket is refused on the next tick, as a closed localhost port is. */
  static refuseAll = false;
  onopen: (() => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onclose: (() => void) | null = null;
  onerror: (() => void) | null = null;
  sent: string[] = [];
  closed = false;
  constructor(readonly url: string) {
    FakeSocket.made.push(this);
    if (FakeSocket.refuseAll) setTimeout(() => this.refuse(), 0);
  }
  send(data: string) {
    this.sent.push(data);
  }
  close() {
    this.closed = true;
  }
  refuse() {
    this.onerror?.();
    this.onclose?.();
  }
  answer(reply: unknown) {
    this.onopen?.();
    this.onmessage?.({ data: typeof reply === "string" ? reply : JSON.stringify(reply) });
  }
}

const PORTS = [9527, 19527, 29527];
let probe: LocalClientProbe;
const open = () => FakeSocket.made.filter((s) => !s.closed);
const latest = (n: number) => FakeSocket.made.slice(-n);

beforeEach(() => {
  vi.useFakeTimers();
  FakeSocket.made = [];
  FakeSocket.refuseAll = false;
  probe = new LocalClientProbe({ ports: PORTS, secure: false, WebSocket: FakeSocket as unknown as typeof WebSocket });
});
afterEach(() => {
  probe.close();
  vi.useRealTimers();
});

describe("LocalClientProbe", () => {
  it("asks every port at once on 127.0.0.1 with ws, or wss for https pages", () => {
    probe.start();
    expect(FakeSocket.made.map((s) => s.url)).toEqual(["ws://127.0.0.1:9527", "ws://127.0.0.1:19527", "ws://127.0.0.1:29527"]);
    const secure = new LocalClientProbe({ ports: [9527], secure: true, WebSocket: FakeSocket as unknown as typeof WebSocket });
    secure.start();
    expect(FakeSocket.made.at(-1)!.url).toBe("wss://127.0.0.1:9527");
    secure.close();
  });

  it("retries a silent round every 6 s, not sooner, counting the tries", () => {
    probe.start();
    latest(3).forEach((s) => s.refuse());
    expect(probe.state).toEqual({ status: "searching", tries: 1 });
    vi.advanceTimersByTime(RECONNECT_DELAY_MS - 1);
    expect(FakeSocket.made).toHaveLength(3);
    vi.advanceTimersByTime(1);
    expect(FakeSocket.made).toHaveLength(6);
    latest(3).forEach((s) => s.refuse());
    expect(probe.state).toEqual({ status: "searching", tries: 2 });
  });

  it("counts a port that opens but never answers the check as silent", () => {
    probe.start();
    const [first, second, third] = latest(3);
    first!.refuse();
    second!.refuse();
    third!.onopen?.();
    expect(probe.state).toEqual({ status: "searching", tries: 0 });
    vi.advanceTimersByTime(CHECK_TIMEOUT_MS);
    expect(third!.closed).toBe(true);
    expect(probe.state).toEqual({ status: "searching", tries: 1 });
  });

  it("keeps the first port that answers the check, closes the others and resets the count", () => {
    probe.start();
    latest(3).forEach((s) => s.refuse());
    vi.advanceTimersByTime(RECONNECT_DELAY_MS);
    const [, second, third] = latest(3);
    second!.answer({ action: "check", protocol: LOCAL_PROTOCOL_VERSION, version: "3.4.1", latest: "3.5.0" });
    expect(JSON.parse(second!.sent[0]!)).toEqual({ action: "check", protocol: LOCAL_PROTOCOL_VERSION });
    expect(probe.state).toEqual({ status: "connected", port: 19527, protocol: LOCAL_PROTOCOL_VERSION, version: "3.4.1", latest: "3.5.0" });
    expect(open()).toEqual([second]);
    // A later answer from another port changes nothing.
    third!.answer({ action: "check", protocol: LOCAL_PROTOCOL_VERSION, version: "9.9.9" });
    expect(probe.state).toMatchObject({ port: 19527, version: "3.4.1" });
  });

  it("ignores answers that are not a check reply", () => {
    probe.start();
    const [first] = latest(3);
    first!.answer("not json");
    first!.answer({ action: "check", protocol: LOCAL_PROTOCOL_VERSION, version: "<b>3</b>" });
    first!.answer({ action: "hello" });
    expect(probe.state).toEqual({ status: "searching", tries: 0 });
  });

  it("looks again 6 s after the client disconnects, with the count starting from zero", () => {
    probe.start();
    const [first] = latest(3);
    first!.answer({ action: "check", protocol: LOCAL_PROTOCOL_VERSION, version: "3.4.1" });
    const made = FakeSocket.made.length;
    first!.onmessage?.({ data: JSON.stringify({ action: "disconnect" }) });
    expect(probe.state).toEqual({ status: "searching", tries: 0 });
    expect(first!.closed).toBe(true);
    vi.advanceTimersByTime(RECONNECT_DELAY_MS - 1);
    expect(FakeSocket.made).toHaveLength(made);
    vi.advanceTimersByTime(1);
    expect(FakeSocket.made).toHaveLength(made + 3);
  });

  it("asks at once when told to (the user started the client), then keeps the 6 s rhythm", () => {
    probe.start();
    latest(3).forEach((s) => s.refuse());
    vi.advanceTimersByTime(1000);
    probe.retryNow();
    expect(FakeSocket.made).toHaveLength(6);
    latest(3).forEach((s) => s.refuse());
    vi.advanceTimersByTime(RECONNECT_DELAY_MS - 1000);
    expect(FakeSocket.made).toHaveLength(6);
    vi.advanceTimersByTime(1000);
    expect(FakeSocket.made).toHaveLength(9);
  });

  it("gives up after the spec's 50000 silent rounds (here a probe told to stop after 5)", () => {
    expect(RECONNECT_MAX_TRIES).toBe(50_000);
    const single = new LocalClientProbe({ ports: [9527], secure: false, maxTries: 5, WebSocket: FakeSocket as unknown as typeof WebSocket });
    FakeSocket.refuseAll = true;
    single.start();
    // Each refusal lands a tick after its round; 100 ms covers the drift of four rounds.
    vi.advanceTimersByTime(RECONNECT_DELAY_MS * 3 + 100);
    expect(single.state).toEqual({ status: "searching", tries: 4 });
    vi.advanceTimersByTime(RECONNECT_DELAY_MS);
    expect(single.state).toEqual({ status: "gave-up" });
    vi.advanceTimersByTime(RECONNECT_DELAY_MS * 10);
    expect(FakeSocket.made).toHaveLength(5);
    single.close();
  });
});
