import {describe, expect, it} from "vitest";
import {formatBytes, parseByteSize} from "../../../src/models/byteSize.js";

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
