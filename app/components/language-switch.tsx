import { Form, useLocation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { useRootData } from "~/root";
import { Button } from "./ui/button";

/** Switches between Chinese and English; hidden in the English edition. A plain form: works without JavaScript. */
export function LanguageSwitch({ className }: { className?: string }) {
  const root = useRootData();
  const { t } = useTranslation();
  const location = useLocation();
  if (!root || root.englishOnly) return null;
  const next = root.lang === "zh" ? "en" : "zh";
  return (
    <Form method="post" action="/language" className={className} reloadDocument>
      <input type="hidden" name="lang" value={next} />
      <input type="hidden" name="redirectTo" value={location.pathname + location.search} />
      <Button type="submit" variant="text" size="small" aria-label={t(next === "zh" ? "auth.language.to-zh" : "auth.language.to-en")}>
        {next === "zh" ? "中文" : "English"}
      </Button>
    </Form>
  );
}
