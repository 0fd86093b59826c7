import { describe, expect, it } from "vitest";
import { z } from "zod";
import { intParam, parseOr400 } from "../../src/http/validation";

const query = z.strictObject({ limit: intParam(1, 200, 50), offset: intParam(0, 10_000, 0) });

describe("parseOr400 with whole-number query parameters", () => {
  it("applies defaults and converts", () => {
    expect(parseOr400(query, {}, "query")).toEqual({ limit: 50, offset: 0 });
    expect(parseOr400(query, { limit: "200", offset: "10000" }, "query")).toEqual({ limit: 200, offset: 10_000 });
  });

  it.each([
    [{ limit: "0" }, /'limit': must be at least 1/],
    [{ limit: "201" }, /'limit': must be at most 200/],
    [{ limit: "1.5" }, /'limit': must be a whole number/],
    [{ limit: "-1" }, /'limit': must be a whole number/],
    [{ limit: "1e2" }, /'limit': must be a whole number/],
    [{ limit: "" }, /'limit': must be a whole number/],
    [{ offset: "10001" }, /'offset': must be at most 10000/],
    [{ limit: "99999999999999999999" }, /^Invalid query: 'limit': must be at most 200\.$/],
    [{ limit: `1${"0".repeat(400)}` }, /^Invalid query: 'limit': must be at most 200\.$/],
    [{ limit: ["1", "2"] }, /'limit'/],
    [{ page: "2" }, /unknown query parameter 'page'/],
  ])("refuses %o with a 400 naming the parameter", (value, message) => {
    expect(() => parseOr400(query, value, "query")).toThrow(message);
    try {
      parseOr400(query, value, "query");
    } catch (error) {
      expect(error).toMatchObject({ statusCode: 400 });
    }
  });
});

describe("parseOr400 and text that is not well-formed Unicode", () => {
  const body = z.object({ name: z.string(), tags: z.array(z.string()).optional(), extra: z.record(z.string(), z.string()).optional() });

  it.each([
    [{ name: "\ud800" }, "'name'"],
    [{ name: "ok", tags: ["fine", "a\udfffb"] }, "'tags.1'"],
    [{ name: "ok", extra: { ["key\ud83d"]: "value" } }, "'extra'"],
    ["\udc00", "body"],
  ])("refuses %j naming where it is, before the schema", (value, where) => {
    expect(() => parseOr400(body, value, "body")).toThrow(`Invalid body: ${where}: is not well-formed Unicode (a lone UTF-16 surrogate).`);
  });

  it("accepts surrogate pairs (emoji and the other astral characters)", () => {
    expect(parseOr400(body, { name: "🙂 𝄞 𠀀", tags: ["👍🏽"] }, "body")).toEqual({ name: "🙂 𝄞 𠀀", tags: ["👍🏽"] });
  });
});

describe("parseOr400 and unknown keys", () => {
  const body = z.strictObject({ name: z.string() });

  it("names the first ten, cut to 64 characters, and counts the rest", () => {
    const value: Record<string, string> = { name: "x", ["k".repeat(100)]: "" };
    for (let i = 0; i < 5000; i++) value[`made-up-${i}`] = "";
    let message = "";
    try {
      parseOr400(body, value, "body");
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toBe(`Invalid body: unknown fields '${"k".repeat(64)}...', ${Array.from({ length: 9 }, (_, i) => `'made-up-${i}'`).join(", ")} and 4991 more.`);
  });

  it("names one or a few in full", () => {
    expect(() => parseOr400(body, { name: "x", bcc: "y" }, "body")).toThrow("Invalid body: unknown field 'bcc'.");
  });

  it("says a problem of the whole without a name before it (not 'body: ...')", () => {
    expect(() => parseOr400(body, [], "body")).toThrow(/^Invalid body: Invalid input: expected object, received array\.$/);
    expect(() => parseOr400(body.refine((b) => b.name !== "x", "the name must not be x"), { name: "x" }, "body")).toThrow(/^Invalid body: the name must not be x\.$/);
  });

  it("says where an unknown key of a nested object is", () => {
    const nested = z.strictObject({ sections: z.array(z.strictObject({ title: z.string() })) });
    expect(() => parseOr400(nested, { sections: [{ title: "a" }, { title: "b", feilds: [] }] }, "body")).toThrow("Invalid body: 'sections.1': unknown field 'feilds'.");
  });
});

describe("parseOr400 and many problems", () => {
  const items = z.strictObject({ items: z.array(z.strictObject({ width: z.enum(["full", "half"]) })).max(5_000) });

  it("names the first twenty and counts the rest", () => {
    let message = "";
    try {
      parseOr400(items, { items: Array.from({ length: 2_000 }, () => ({ width: "third" })) }, "body");
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message.match(/'items\.\d+\.width': Invalid option/g)).toHaveLength(20);
    expect(message).toMatch(/'items\.19\.width': [^;]*; and 1980 more problem\(s\)\.$/);
    expect(message.length).toBeLessThan(2_000);
  });

  it("says a value of the wrong type once, without the checks zod adds of the same place", () => {
    expect(() => parseOr400(items, { items: { length: 9_000 } }, "body")).toThrow(/^Invalid body: 'items': Invalid input: expected array, received object\.$/);
  });
});

describe("parseOr400 and deeply nested bodies", () => {
  it("checks a body nested 20,000 levels deep without overflowing the stack (the schema answers)", () => {
    let deep: unknown = "\ud800";
    for (let i = 0; i < 20_000; i++) deep = { a: deep };
    expect(() => parseOr400(z.strictObject({ name: z.string() }), { name: "x", deep: { a: "ok" } }, "body")).toThrow("unknown field 'deep'");
    expect(() => parseOr400(z.object({ a: z.unknown() }), deep, "body")).toThrow(`Invalid body: '${"a.".repeat(50)}...': is not well-formed Unicode (a lone UTF-16 surrogate).`);
  });
});
