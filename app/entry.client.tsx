import { RemixBrowser } from "@remix-run/react";
import { createInstance } from "i18next";
import { startTransition, StrictMode } from "react";
import { hydrateRoot } from "react-dom/client";
import { I18nextProvider, initReactI18next } from "react-i18next";
import { i18nConfig } from "./i18n/config";

// The server rendered in <html lang>; the browser starts in the same language and keeps the
// choice mirrored in localStorage (the cookie stays the source the server reads).
const lng = document.documentElement.lang === "zh" ? "zh" : "en";
const i18n = createInstance();
void i18n.use(initReactI18next).init({ ...i18nConfig, lng });
try {
  localStorage.setItem("ferry_lang", lng);
} catch {
  // Storage can be unavailable (private modes); the cookie still carries the choice.
}

startTransition(() => {
  hydrateRoot(
    document,
    <I18nextProvider i18n={i18n}>
      <StrictMode>
        <RemixBrowser />
      </StrictMode>
    </I18nextProvider>,
  );
});
