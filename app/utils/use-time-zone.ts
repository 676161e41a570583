import { useCallback } from "react";
import { useRootData } from "~/root";
import { formatUnixTime } from "./format";
import { runtimeTimeZone } from "./time-zone";

/** The reader's time zone, as the root loader knows it (the same on the server and in the browser). */
export function useTimeZone(): string {
  return useRootData()?.timeZone ?? runtimeTimeZone();
}

/** formatUnixTime in the reader's time zone. */
export function useFormatTime(): (seconds: number) => string {
  const timeZone = useTimeZone();
  return useCallback((seconds: number) => formatUnixTime(seconds, timeZone), [timeZone]);
}
