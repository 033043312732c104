import {describe, expect, it} from "vitest";
import {z} from "zod";
import {keepAliveValue, parseKeepAlive} from "../../../src/models/keepAlive.js";

describe("keep-alive durations, as Ollama spells them", () => {
    it("reads numbers of seconds, Go durations and numeric strings; anything negative is for ever", () => {
        expect(parseKeepAlive(300)).toEqual({ms: 300_000});
        expect(parseKeepAlive(0.5)).toEqual({ms: 500});
        expect(parseKeepAlive(0)).toEqual({ms: 0});
        expect(parseKeepAlive(-1)).toBe("forever");
        expect(parseKeepAlive("5m")).toEqual({ms: 300_000});
        expect(parseKeepAlive("1h30m")).toEqual({ms: 5_400_000});
        expect(parseKeepAlive("1.5h")).toEqual({ms: 5_400_000});
        expect(parseKeepAlive("30s")).toEqual({ms: 30_000});
        expect(parseKeepAlive("250ms")).toEqual({ms: 250});
        expect(parseKeepAlive("0")).toEqual({ms: 0});
        expect(parseKeepAlive("300")).toEqual({ms: 300_000});
        expect(parseKeepAlive("-1")).toBe("forever");
        expect(parseKeepAlive("-5m")).toBe("forever");
        // Longer than a timer can wait (about 24.8 days) is for ever too.
        expect(parseKeepAlive("10000h")).toBe("forever");
    });

    it("refuses what is no duration, saying how to write one", () => {
        for (const bad of ["", "5 minutes", "m", "5d", "1e3"])
            expect(() => parseKeepAlive(bad)).toThrow(/is not a duration \(e\.g\. 30s, 5m/);
        expect(() => parseKeepAlive(Number.POSITIVE_INFINITY)).toThrow(/finite/);
    });

    it("reads a JSON value, turning one that is no duration into a validation issue", () => {
        expect(keepAliveValue.parse("10m")).toEqual({ms: 600_000});
        expect(keepAliveValue.parse(-1)).toBe("forever");
        expect(z.object({keep_alive: keepAliveValue}).safeParse({keep_alive: "soon"}).error?.issues[0]?.message).toMatch(/'soon' is not a duration/);
        expect(keepAliveValue.safeParse(true).error?.issues[0]?.message).toBe("keep_alive must be a number of seconds or a duration such as \"5m\"");
    });
});
