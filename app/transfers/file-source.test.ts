import { describe, expect, it } from "vitest";
import { wholeFileReader } from "./file-source";

describe("the tus file reader", () => {
  const file = new File([new Uint8Array([1, 2, 3, 4, 5, 6])], "six.bin");

  it("hands over the File itself for a request of the whole file", async () => {
    const source = await wholeFileReader.openFile(file, Number.POSITIVE_INFINITY);
    expect(source.size).toBe(6);
    const whole = await source.slice(0, 6);
    expect(whole.value).toBe(file);
    expect(whole.done).toBe(true);
  });

  it("slices the rest of a resumed upload and a part of the file", async () => {
    const source = await wholeFileReader.openFile(file, Number.POSITIVE_INFINITY);
    const rest = await source.slice(2, 6);
    expect(rest.value).not.toBe(file);
    expect([...new Uint8Array(await (rest.value as Blob).arrayBuffer())]).toEqual([3, 4, 5, 6]);
    expect(rest.done).toBe(true);
    const part = await source.slice(0, 4);
    expect([...new Uint8Array(await (part.value as Blob).arrayBuffer())]).toEqual([1, 2, 3, 4]);
    expect(part.done).toBe(false);
  });
});
