import { act, render, type RenderOptions } from "@testing-library/react";
import { createInstance } from "i18next";
import type { ReactElement } from "react";
import { I18nextProvider, initReactI18next } from "react-i18next";
import { afterEach, beforeEach, vi } from "vitest";
import { i18nConfig } from "./i18n/config";

/** Renders `ui` for a unit test with the real resources in the given language. */
export function renderWithI18n(ui: ReactElement, { lang = "en", ...options }: RenderOptions & { lang?: "en" | "zh" } = {}) {
  const i18n = createInstance();
  void i18n.use(initReactI18next).init({ ...i18nConfig, lng: lang, initImmediate: false });
  return { i18n, ...render(<I18nextProvider i18n={i18n}>{ui}</I18nextProvider>, options) };
}

/** Fake timers for every test of the calling file (delays and durations are checked, never slept). */
export function fakeTimersPerTest() {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });
}

/** Moves the fake clock and lets React apply what the timers did. */
export function advance(ms: number) {
  act(() => {
    vi.advanceTimersByTime(ms);
  });
}
