import { screen } from "@testing-library/react";
import { useTranslation } from "react-i18next";
import { describe, expect, it } from "vitest";
import { renderWithI18n } from "../test-utils";
import { resources } from "./resources";

function Sample() {
  const { t } = useTranslation();
  return (
    <p>
      {t("global.confirm.delete")} · {t("global.pagination.total", { total: 42 })} · {t("error.1009")}
    </p>
  );
}

describe("i18n resources", () => {
  it("have the same keys in English and Chinese", () => {
    expect(Object.keys(resources.zh.common).sort()).toEqual(Object.keys(resources.en.common).sort());
  });
  it("translate dotted keys, variables and engine codes in both languages", () => {
    renderWithI18n(<Sample />);
    expect(screen.getByText("Delete · Total 42 items · Your login has expired; please log in again")).toBeTruthy();
    renderWithI18n(<Sample />, { lang: "zh" });
    expect(screen.getByText(/删除 · 共 42 条 · /)).toBeTruthy();
  });
});
