import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderWithI18n } from "../../test-utils";
import { Tabs } from "./tabs";

const items = [
  { key: "way", label: "Way" },
  { key: "permissions", label: "Permissions" },
] as const;

describe("Tabs", () => {
  it("is a named tab list of links, the selected tab owning the panel", () => {
    renderWithI18n(
      <Tabs label="Settings" items={items} selected="permissions" hrefFor={(key) => `/settings?tab=${key}`}>
        <p>Panel body</p>
      </Tabs>,
    );
    expect(screen.getByRole("tablist", { name: "Settings" }).tagName).toBe("DIV");
    const way = screen.getByRole("tab", { name: "Way" });
    const permissions = screen.getByRole("tab", { name: "Permissions" });
    expect(way.getAttribute("href")).toBe("/settings?tab=way");
    expect(way.getAttribute("aria-selected")).toBe("false");
    expect(permissions.getAttribute("aria-selected")).toBe("true");
    const panel = screen.getByRole("tabpanel", { name: "Permissions" });
    expect(panel.textContent).toBe("Panel body");
    expect(permissions.getAttribute("aria-controls")).toBe(panel.id);
  });

  it("renders the tabs with the given link component", () => {
    renderWithI18n(
      <Tabs label="Settings" items={items} selected="way" hrefFor={(key) => `/s/${key}`} link={({ href, ...props }) => <a data-router={href} href={href} {...props} />}>
        <p>Body</p>
      </Tabs>,
    );
    expect(screen.getByRole("tab", { name: "Permissions" }).getAttribute("data-router")).toBe("/s/permissions");
  });
});
