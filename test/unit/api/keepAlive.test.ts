import {describe, expect, it} from "vitest";
import {z} from "zod";
import {keepAliveField, keepAliveSeconds} from "../../../src/api/keepAlive.js";

describe("keep_alive on the wire", () => {
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
