import { useTranslation } from "react-i18next";
import { useRootData } from "~/root";

const STYLES = {
  date: { year: "numeric", month: "2-digit", day: "2-digit" },
  dateTime: { year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23" },
  time: { hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23" },
} as const satisfies Record<string, Intl.DateTimeFormatOptions>;

/**
 * Formats unix milliseconds in the page's language and the reader's time zone (the root loader's,
 * utils/time-zone.ts), so the server and the browser write the same text.
 */
export function useFormatTime(style: keyof typeof STYLES) {
  const { i18n } = useTranslation();
  const timeZone = useRootData()?.timeZone;
  const format = new Intl.DateTimeFormat(i18n.language === "zh" ? "zh-CN" : "en-GB", { ...STYLES[style], timeZone });
  return (ms: number) => format.format(ms);
}
