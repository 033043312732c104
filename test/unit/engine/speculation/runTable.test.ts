import {describe, expect, it} from "vitest";
import {RunTable} from "../../../../src/engine/speculation/runTable.js";

describe("RunTable", () => {
    it("stores a position per hash and hands back the one it replaces", () => {
        const table = new RunTable();
        expect(table.get(42)).toBe(-1);
        expect(table.swap(42, 7)).toBe(-1);
        expect(table.swap(42, 9)).toBe(7);
        expect(table.get(42)).toBe(9);
    });

    it("keeps hashes that share a slot apart, and every entry through its growth", () => {
        const table = new RunTable();
        // Multiples of 2^20 all start probing at slot 0 of any table of up to 2^20 slots.
        const hashes = Array.from({length: 4_000}, (_, index) => index % 2 === 0 ? index / 2 * 2 ** 20 : (index * 2654435761) >>> 0);
        hashes.forEach((hash, index) => table.swap(hash, index));
        hashes.forEach((hash, index) => expect(table.get(hash)).toBe(index));
        expect(table.get(123_456_789)).toBe(-1);
    });
});
