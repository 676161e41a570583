import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderWithI18n } from "../../test-utils";
import { Facts } from "./facts";

describe("Facts", () => {
  it("is a definition list: each term with its value, falsy rows left out, a list value one item each", () => {
    renderWithI18n(
      <Facts
        label="Link"
        rows={[
          ["Owner", "alice"],
          false,
          ["Files", ["/a.txt", "/b.txt"], "list"],
          null,
          ["Device", "dev-1", "mono"],
        ]}
      />,
    );
    expect(screen.getAllByRole("definition")[0]?.closest("dl")?.getAttribute("aria-label")).toBe("Link");
    expect(screen.getAllByRole("term").map((term) => term.textContent)).toEqual(["Owner", "Files", "Device"]);
    expect(screen.getAllByRole("definition").map((value) => value.textContent)).toEqual(["alice", "/a.txt/b.txt", "dev-1"]);
    expect(screen.getAllByRole("listitem").map((item) => item.textContent)).toEqual(["/a.txt", "/b.txt"]);
  });
});
