import {describe, expect, it} from "vitest";
import {medianInterval} from "../../../bench/stats.js";

const oneTo = (n: number) => Array.from({length: n}, (_, index) => n - index); // unsorted on purpose

describe("the bench's interval for a median", () => {
    it("takes the ranks of the binomial table at 95 %", () => {
        // The usual table: n = 10 → 2nd and 9th values, n = 30 → 10th and 21st, n = 60 → 22nd and 39th.
        expect(medianInterval(oneTo(10))).toEqual({low: 2, high: 9});
        expect(medianInterval(oneTo(30))).toEqual({low: 10, high: 21});
        expect(medianInterval(oneTo(60))).toEqual({low: 22, high: 39});
    });

    it("widens for a higher confidence and has no interval for too few values", () => {
        expect(medianInterval(oneTo(30), 0.99)).toEqual({low: 8, high: 23});
        expect(medianInterval(oneTo(6))).toEqual({low: 1, high: 6});
        expect(medianInterval(oneTo(5))).toEqual({low: Number.NaN, high: Number.NaN});
    });

    it("leaves out values that are not numbers", () => {
        expect(medianInterval([...oneTo(10), Number.NaN, Number.POSITIVE_INFINITY])).toEqual({low: 2, high: 9});
    });
});
