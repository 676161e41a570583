import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { aliasProblem } from "../../contract/share";
import { FILE_NAME_MAX, isValidFileName, nameProblem } from "../../contract/validation";

/** The one rule for user-chosen names (contract/validation.ts nameProblem; docs/security.md section 5). */

const CONTROLS = ["\u0000", "\t", "\r", "\n", "\u001b", "\u007f", "\u0080", "\u0085", "\u009f", "\u2028", "\u2029", "\u202e", "\u2066"];
const FORBIDDEN = ["\\", "/", ":", '"', "*", "?", "<", ">", "|"];
const LOOKALIKES = ["\uff0e", "\uff0f", "\uff3c", "\u2024", "\u2025", "\u2026", "\ufe52", "\ufe68", "\u2215", "\u2044", "\u29f8", "\u2216", "\u2571"];
const GOOD = ["report.pdf", "file..name", "报告：2024.docx", "a。b", "２０２６ plan", "naïve café", "x".repeat(FILE_NAME_MAX), "😀 smile", "..hidden", "a b"];

describe("nameProblem", () => {
  it("accepts ordinary names, fullwidth colons and ideographic full stops included", () => {
    for (const name of GOOD) expect({ name, problem: nameProblem(name) }).toEqual({ name, problem: null });
  });

  it("refuses control characters (NUL, tab, CR, LF, DEL, C1, separators, bidi controls) anywhere", () => {
    for (const c of CONTROLS) for (const name of [c, `a${c}b`, `${c}a`, `a${c}`]) expect({ name, problem: nameProblem(name) }).toEqual({ name, problem: "control" });
  });

  it("refuses the spec's forbidden characters", () => {
    for (const c of FORBIDDEN) for (const name of [c, `a${c}b`]) expect(nameProblem(name), name).toBe("forbidden");
  });

  it("refuses look-alikes of . / and \\ that NFKC folds onto them or that only look like them", () => {
    for (const c of LOOKALIKES) for (const name of [c, `${c}${c}`, `a${c}b`, `..${c}etc`]) expect(nameProblem(name), JSON.stringify(name)).toBe("lookalike");
  });

  it("refuses empty, too long, . and .., and lone surrogates", () => {
    expect(nameProblem("")).toBe("empty");
    expect(nameProblem("x".repeat(FILE_NAME_MAX + 1))).toBe("length");
    expect(nameProblem("abcd", 3)).toBe("length");
    expect(nameProblem(".")).toBe("dots");
    expect(nameProblem("..")).toBe("dots");
    expect(nameProblem("a\ud800b")).toBe("control");
    expect(nameProblem("\udc00")).toBe("control");
  });

  it("property: an accepted name has no control or forbidden character, and its NFKC form has no / or \\ and is not . or ..", () => {
    const alphabet = fc.constantFrom(...CONTROLS, ...FORBIDDEN, ...LOOKALIKES, "a", "b", ".", " ", "。", "：", "é", "中", "\ud83d\ude00");
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 12 }).map((parts) => parts.join("")), (name) => {
        if (nameProblem(name) !== null) return;
        const folded = name.normalize("NFKC");
        // eslint-disable-next-line no-control-regex -- what an accepted name may not hold
        expect(/[\u0000-\u001f\u007f-\u009f\\/:"*?<>|]/.test(name)).toBe(false);
        expect(/[/\\]/.test(folded)).toBe(false);
        expect(folded === "." || folded === "..").toBe(false);
        for (const ch of name) if (ch.charCodeAt(0) > 0x7f) expect(/[./\\]/.test(ch.normalize("NFKC"))).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });

  it("property: any string is answered without throwing, and isValidFileName agrees with it", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 300 }), (name) => {
        expect(isValidFileName(name)).toBe(nameProblem(name) === null);
      }),
      { numRuns: 2000 },
    );
  });
});

describe("share aliases use the same rule (error3)", () => {
  const items = [{ name: "a.txt", isFolder: false }, { name: "b.txt", isFolder: false }];
  it("refuses what nameProblem refuses", () => {
    for (const alias of [...CONTROLS.map((c) => `x${c}y`), ...FORBIDDEN.map((c) => `x${c}y`), ...LOOKALIKES.map((c) => `x${c}y`), ".", "..", "   "]) {
      expect(aliasProblem(items, [{ file: "/a.txt", alias }]), JSON.stringify(alias)).toBe("error3");
    }
    expect(aliasProblem(items, [{ file: "/a.txt", alias: "報告：final.txt" }])).toBeNull();
  });
});
