import { screen } from "@testing-library/react";
import { useTranslation } from "react-i18next";
import { describe, expect, it } from "vitest";
import { renderWithI18n } from "../test-utils";
import { pluralBase } from "./plural";
import { resources } from "./resources";

function Sample() {
  const { t } = useTranslation();
  return (
    <p>
      {t("global.confirm.delete")} · {t("global.pagination.total", { count: 42 })} · {t("error.1009")}
    </p>
  );
}

describe("i18n resources", () => {
  it("have the same keys in English and Chinese (Chinese has one plural form: no _one keys needed)", () => {
    const en = Object.keys(resources.en.common);
    const zh = new Set(Object.keys(resources.zh.common));
    expect(en.filter((key) => !key.endsWith("_one") && !zh.has(key))).toEqual([]);
    expect([...zh].filter((key) => !(key in resources.en.common))).toEqual([]);
    // Every plural has its _other form, which is what Chinese (and English above one) uses.
    expect(en.filter((key) => key.endsWith("_one") && !en.includes(`${pluralBase(key)}_other`))).toEqual([]);
  });
  it("pluralise counts: 1 item, 2 items; Chinese has one form", () => {
    const counts = (lang: "en" | "zh") => {
      function Count() {
        const { t } = useTranslation();
        return <p>{[1, 2].map((count) => t("global.pagination.total", { count })).join(" · ")}</p>;
      }
      renderWithI18n(<Count />, { lang });
    };
    counts("en");
    expect(screen.getByText("Total 1 item · Total 2 items")).toBeTruthy();
    counts("zh");
    expect(screen.getByText("共 1 条 · 共 2 条")).toBeTruthy();
  });
  it("translate dotted keys, variables and engine codes in both languages", () => {
    renderWithI18n(<Sample />);
    expect(screen.getByText("Delete · Total 42 items · Your login has expired; please log in again")).toBeTruthy();
    renderWithI18n(<Sample />, { lang: "zh" });
    expect(screen.getByText(/删除 · 共 42 条 · /)).toBeTruthy();
  });
});
