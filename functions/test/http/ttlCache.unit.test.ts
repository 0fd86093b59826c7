import { describe, expect, it } from "vitest";
import { TtlCache } from "../../src/http/ttlCache";

describe("TtlCache", () => {
  it("forgets an entry once its time to live has passed, not before", () => {
    let now = 1_000;
    const cache = new TtlCache<string>(60_000, 10, () => now);
    cache.set("a", "x");
    now += 59_999;
    expect(cache.get("a")).toBe("x");
    now += 1;
    expect(cache.get("a")).toBeUndefined();
  });

  it("does not extend an entry's life when it is read", () => {
    let now = 0;
    const cache = new TtlCache<number>(100, 10, () => now);
    cache.set("k", 1);
    for (now = 10; now < 100; now += 10) expect(cache.get("k")).toBe(1);
    expect(cache.get("k")).toBeUndefined();
  });

  it("lets an entry live shorter than the cache's time to live, never longer", () => {
    let now = 0;
    const cache = new TtlCache<string>(1_000, 10, () => now);
    cache.set("short", "s", 100);
    cache.set("long", "l", 5_000);
    now = 100;
    expect(cache.get("short")).toBeUndefined();
    now = 999;
    expect(cache.get("long")).toBe("l");
    now = 1_000;
    expect(cache.get("long")).toBeUndefined();
  });

  it("forgets an entry that is deleted", () => {
    const cache = new TtlCache<number>(1_000);
    cache.set("k", 1);
    cache.delete("k");
    expect(cache.get("k")).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it("holds at most maxEntries, dropping the oldest first", () => {
    const cache = new TtlCache<number>(1_000, 2);
    cache.set("a", 1);
    cache.set("b", 2);
    cache.set("c", 3);
    expect(cache.size).toBe(2);
    expect(cache.get("a")).toBeUndefined();
    expect(cache.get("c")).toBe(3);
  });
});
