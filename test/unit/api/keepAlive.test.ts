import {describe, expect, it} from "vitest";
import {z} from "zod";
import {keepAliveField, keepAliveSeconds, parseKeepAlive} from "../../../src/api/keepAlive.js";
import {formatBytes, parseByteSize} from "../../../src/models/byteSize.js";

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

    it("reports seconds, -1 for ever", () => {
        expect(keepAliveSeconds({ms: 90_000})).toBe(90);
        expect(keepAliveSeconds("forever")).toBe(-1);
    });

    it("is an optional request field that turns bad values into a validation issue", () => {
        const schema = z.object({keep_alive: keepAliveField});
        expect(schema.parse({keep_alive: "10m"})).toEqual({keep_alive: {ms: 600_000}});
        expect(schema.parse({})).toEqual({});
        expect(schema.parse({keep_alive: null})).toEqual({keep_alive: null});
        expect(schema.safeParse({keep_alive: "soon"}).success).toBe(false);
        expect(schema.safeParse({keep_alive: true}).success).toBe(false);
    });
});

describe("memory sizes", () => {
    it("reads decimal and binary units, and bare bytes", () => {
        expect(parseByteSize("8GB")).toBe(8e9);
        expect(parseByteSize("8gb")).toBe(8e9);
        expect(parseByteSize("7.5GiB")).toBe(7.5 * 2 ** 30);
        expect(parseByteSize("512MiB")).toBe(512 * 2 ** 20);
        expect(parseByteSize("512 MB")).toBe(512e6);
        expect(parseByteSize("2G")).toBe(2e9);
        expect(parseByteSize("1000000")).toBe(1e6);
    });

    it("refuses what is no size", () => {
        for (const bad of ["", "lots", "8 GBs", "-1GB", "0"])
            expect(() => parseByteSize(bad)).toThrow(/is not a size|no memory/);
    });

    it("writes sizes in binary units", () => {
        expect(formatBytes(500)).toBe("500 bytes");
        expect(formatBytes(1.5 * 2 ** 30)).toBe("1.5 GiB");
        expect(formatBytes(768 * 2 ** 20)).toBe("768 MiB");
    });
});
