import type { Upload } from "tus-js-client";

type TusFileReader = NonNullable<ConstructorParameters<typeof Upload>[1]["fileReader"]>;
type TusFileSource = Awaited<ReturnType<TusFileReader["openFile"]>>;

/**
 * tus-js-client's file reader, except that a request covering the whole file sends the File
 * itself rather than `file.slice(0, size)`. Chromium's XHR hands a File's path to its network
 * service, which reads the disk directly; any other Blob (a slice included, even of the whole
 * file) is copied through the browser process into a data pipe first. Measured on the 2-core
 * development machine (docs/bench.md, "UI upload"): ~1.0 CPU-second per 256 MiB for the File
 * against ~2.2 for a slice, on cores the engine and the hash worker need at the same time.
 * A resumed upload (start > 0) has no such path and sends a slice.
 */
export const wholeFileReader: TusFileReader = {
  openFile(input: Blob): Promise<TusFileSource> {
    return Promise.resolve({
      size: input.size,
      slice(start: number, end: number) {
        const value = start === 0 && end >= input.size ? input : input.slice(start, end);
        return Promise.resolve({ value, done: end >= input.size });
      },
      close() {},
    });
  },
};
