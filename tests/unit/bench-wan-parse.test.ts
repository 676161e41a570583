import { describe, expect, it } from "vitest";
import { parseIperf, parseWindowed } from "../../scripts/bench/wan-link";

describe("parseWindowed (curl --write-out of a download that --max-time may stop)", () => {
  it("reads a finished download", () => {
    expect(parseWindowed("\n200 1073741824 9.5\n", 0)).toEqual({ status: 200, bytes: 1073741824, seconds: 9.5, cut: false });
  });

  it("keeps the bytes and time of a download stopped by the window (exit 28)", () => {
    expect(parseWindowed("\n200 1500000 12.000411\n", 28)).toEqual({ status: 200, bytes: 1500000, seconds: 12.000411, cut: true });
  });

  it("refuses any other curl failure, a non-200 answer and a missing line", () => {
    expect(() => parseWindowed("\n000 0 3.0\n", 7)).toThrow("curl exit 7");
    expect(() => parseWindowed("\n403 120 0.2\n", 0)).toThrow("HTTP 403");
    expect(() => parseWindowed("\n000 0 12.0\n", 28)).toThrow("HTTP 0");
    expect(() => parseWindowed("", 0)).toThrow("no transfer line");
    expect(() => parseWindowed("\n200 10 0\n", 0)).toThrow("no transfer line");
  });
});

describe("parseIperf (iperf3 --json)", () => {
  it("reads the receiver's rate over the whole test", () => {
    const json = JSON.stringify({ start: {}, intervals: [], end: { sum_sent: { bits_per_second: 9.2e8 }, sum_received: { bits_per_second: 9.09e8 } } });
    expect(parseIperf(json)).toBe(9.09e8);
  });

  it("refuses a report with an error or without a received rate", () => {
    expect(() => parseIperf(JSON.stringify({ error: "unable to connect to server: Connection refused" }))).toThrow("Connection refused");
    expect(() => parseIperf(JSON.stringify({ end: {} }))).toThrow("no received rate");
    expect(() => parseIperf(JSON.stringify({ end: { sum_received: { bits_per_second: 0 } } }))).toThrow("no received rate");
  });
});
