import {describe, expect, it} from "vitest";
import {wantsHtml} from "../../../../src/api/web-page/webPageHeaders.js";

describe("wantsHtml", () => {
    it("is true for what browsers send for a page", () => {
        expect(wantsHtml("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")).toBe(true);
        expect(wantsHtml("application/xhtml+xml, text/html;q=0.9")).toBe(true);
    });

    it("is false for clients probing /: none, */*, JSON, or a type that only contains text/html", () => {
        expect(wantsHtml(undefined)).toBe(false);
        expect(wantsHtml("*/*")).toBe(false);
        expect(wantsHtml("application/json")).toBe(false);
        expect(wantsHtml("text/htmlx")).toBe(false);
    });
});
