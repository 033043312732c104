import {describe, expect, it} from "vitest";
import {numberRangeGbnf, type NumberBound} from "../../../../src/engine/reply/numberRange.js";

/** The rule as a regular expression: its syntax is a regex's once literals are unquoted (and escaped). */
const asRegExp = (gbnf: string) =>
    new RegExp(`^${gbnf.replace(/"([^"]*)"/g, (_, text: string) => text.replace(/[.\-]/g, "\\$&")).replace(/ /g, "")}$`);

const inclusive = (value: number): NumberBound => ({value, inclusive: true});
const exclusive = (value: number): NumberBound => ({value, inclusive: false});

describe("numberRangeGbnf", () => {
    const spellings = (center: number) => [-3, -1, 0, 1, 3].flatMap((offset) => {
        const whole = center + offset;
        return [String(whole), `${whole}.0`, `${whole}.5`, `${whole}.05`, `${whole}.000`, ...(whole === 0 ? ["-0.5", "-0.05"] : [])];
    });

    it.each([
        ["[0, 1]", inclusive(0), inclusive(1)],
        ["(0, 1)", exclusive(0), exclusive(1)],
        ["> 0", exclusive(0), undefined],
        [">= 0", inclusive(0), undefined],
        ["< 0", undefined, exclusive(0)],
        ["[-5, 5]", inclusive(-5), inclusive(5)],
        ["(-3, -1]", exclusive(-3), inclusive(-1)],
        ["[2, 2]", inclusive(2), inclusive(2)],
        ["[10, 1000)", inclusive(10), exclusive(1000)],
        ["<= 7", undefined, inclusive(7)]
    ])("allows exactly the numbers in %s, written plainly", (_range, low, high) => {
        const rule = asRegExp(numberRangeGbnf(low, high));
        const probes = new Set([low?.value ?? 0, high?.value ?? 0, 0].flatMap(spellings));
        for (const text of probes) {
            const value = Number(text);
            const inside = (low == null || (low.inclusive ? value >= low.value : value > low.value)) &&
                (high == null || (high.inclusive ? value <= high.value : value < high.value));
            expect(rule.test(text), text).toBe(inside);
        }
        for (const refused of ["1e2", "+1", "01", ".5", "1.", "-0", "", "0.1234567"])
            expect(rule.test(refused), refused).toBe(false);
    });

    it("refuses a range no number lies in", () => {
        expect(() => numberRangeGbnf(exclusive(1), inclusive(1))).toThrow(RangeError);
        expect(() => numberRangeGbnf(exclusive(0), exclusive(0))).toThrow(RangeError);
    });
});
