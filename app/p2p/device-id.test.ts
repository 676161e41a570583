import { describe, expect, it } from "vitest";
import { formatDeviceId, parseDeviceId } from "./device-id";

describe("device ids", () => {
  it("shows nine digits in three groups", () => {
    expect(formatDeviceId("482913557")).toBe("482 913 557");
  });

  it("leaves what is not a device id as it is", () => {
    expect(formatDeviceId("12345")).toBe("12345");
    expect(formatDeviceId("082913557")).toBe("082913557");
  });

  it("reads an id typed with or without spaces", () => {
    expect(parseDeviceId("482913557")).toBe("482913557");
    expect(parseDeviceId("482 913 557")).toBe("482913557");
    expect(parseDeviceId("  482 913557 ")).toBe("482913557");
    expect(parseDeviceId("482-913-557")).toBe("482913557");
    // A full-width space from a Chinese input method.
    expect(parseDeviceId("482\u3000913\u3000557")).toBe("482913557");
  });

  it("refuses what is not nine digits starting with 1 to 9", () => {
    expect(parseDeviceId("")).toBeNull();
    expect(parseDeviceId("48291355")).toBeNull();
    expect(parseDeviceId("4829135570")).toBeNull();
    expect(parseDeviceId("082913557")).toBeNull();
    expect(parseDeviceId("48291355a")).toBeNull();
    expect(parseDeviceId("482.913.557")).toBeNull();
  });

  it("round-trips", () => {
    expect(parseDeviceId(formatDeviceId("100000000"))).toBe("100000000");
  });
});
