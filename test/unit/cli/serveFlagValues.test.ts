import {InvalidArgumentError} from "commander";
import {describe, expect, it} from "vitest";
import {decimal} from "../../../src/cli/serveFlagValues.js";

describe("decimal flag values (--draft-token-cost)", () => {
    const share = decimal(0.01, 2);

    it("reads a number with or without a fraction", () => {
        expect(share("0.15")).toBe(0.15);
        expect(share("1")).toBe(1);
        expect(share(" 2 ")).toBe(2);
    });

    it("refuses what is not a plain number in range, as commander's invalid argument", () => {
        for (const value of ["0", "2.5", "-0.1", "1e-1", "0x1", ".5", "abc", ""])
            expect(() => share(value), value).toThrow(InvalidArgumentError);
        expect(() => share("3")).toThrow("expected a number from 0.01 to 2.");
    });
});
