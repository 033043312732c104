import {describe, expect, it} from "vitest";
import {maxJsonNesting, nestsDeeperThan} from "../../../src/json-schema/jsonNesting.js";

const nested = (depth: number): unknown => JSON.parse("[".repeat(depth) + "]".repeat(depth));

describe("nestsDeeperThan", () => {
    it("counts objects and arrays, not scalars", () => {
        expect(nestsDeeperThan({a: [{b: 1}]}, 3)).toBe(false);
        expect(nestsDeeperThan({a: [{b: {}}]}, 3)).toBe(true);
        expect(nestsDeeperThan("text", 0)).toBe(false);
    });

    it("allows the limit and refuses one level more, without overflowing the stack", () => {
        expect(nestsDeeperThan(nested(maxJsonNesting))).toBe(false);
        expect(nestsDeeperThan(nested(maxJsonNesting + 1))).toBe(true);
        expect(nestsDeeperThan(nested(100_000))).toBe(true);
    });
});
