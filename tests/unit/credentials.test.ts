import { describe, expect, it } from "vitest";
import { CREDENTIAL_ALPHABET, createCredentialCodec } from "../../contract/credentials";

const codec = createCredentialCodec("ferry");

describe("credential encoding (UTF-8 → hex → Hashids encodeHex, min length 64)", () => {
  it("matches the worked example in docs/credential-encoding.md", () => {
    expect(codec.encode("admin")).toBe("1K5oOGKZzDn894ANv5odWg6qQwaMQA8B994oJMpB2LjmVJxO3PX1l7YRybr00nwQ");
    expect(codec.encode("Ferry#2026")).toBe("3p1PDjV65dvb2oxwKLQyaRnEml9GoDyVowc7AJmxvM08gY4WXZGN3rmql9zJ7BOA");
    expect(codec.encodeUK("admin", "Ferry#2026")).toBe(`${codec.encode("admin")}.${codec.encode("Ferry#2026")}`);
  });

  it("round-trips any text, with only alphabet characters and at least 64 of them", () => {
    for (const text of ["a", "admin", "Pässwörd#1", "密码Abc123!", "emoji 🚀 ok", "x".repeat(200), "0000", "\u0000lead"]) {
      const encoded = codec.encode(text);
      expect(encoded.length).toBeGreaterThanOrEqual(64);
      expect([...encoded].every((c) => CREDENTIAL_ALPHABET.includes(c))).toBe(true);
      expect(codec.decode(encoded)).toBe(text);
    }
    expect(CREDENTIAL_ALPHABET).not.toContain(".");
    expect(codec.decodeUK(codec.encodeUK("bob", "S3cret!pw"))).toEqual({ account: "bob", password: "S3cret!pw" });
  });

  it("refuses what is not an encoding under this salt", () => {
    expect(codec.decode("")).toBeNull();
    expect(codec.decode("not valid!")).toBeNull();
    expect(codec.decode("abc")).toBeNull();
    expect(createCredentialCodec("other-salt").decode(codec.encode("admin"))).not.toBe("admin");
    expect(codec.decodeUK("only-one-part")).toBeNull();
    expect(codec.decodeUK(`${codec.encode("a")}.${codec.encode("b")}.${codec.encode("c")}`)).toBeNull();
  });
});
