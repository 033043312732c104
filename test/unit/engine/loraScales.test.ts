import {describe, expect, it} from "vitest";
import {BadRequestError} from "../../../src/errors.js";
import {adapterSetKey, partitionUnderAdapters, resolveLoraScales} from "../../../src/engine/loraScales.js";

const adapters = [{path: "/m/a.gguf", scale: 1}, {path: "/m/b.gguf", scale: 0.5}];

describe("resolveLoraScales (llama-server's per-request lora)", () => {
    it("gives the model's own scales when the request names none, or sends an empty list (as llama-server)", () => {
        expect(resolveLoraScales(adapters, undefined)).toEqual([1, 0.5]);
        expect(resolveLoraScales(adapters, [])).toEqual([1, 0.5]);
        expect(resolveLoraScales([], [])).toEqual([]);
    });

    it("sets the adapters a list names and turns the others off; an id named twice takes its last scale", () => {
        expect(resolveLoraScales(adapters, [{id: 1, scale: 2}])).toEqual([0, 2]);
        expect(resolveLoraScales(adapters, [{id: 0, scale: -0.5}, {id: 1, scale: 0.25}])).toEqual([-0.5, 0.25]);
        expect(resolveLoraScales(adapters, [{id: 0, scale: 3}, {id: 0, scale: 0.75}])).toEqual([0.75, 0]);
    });

    it("refuses an id the model has no adapter for with a 400 naming the entry", () => {
        const refusal = (requested: Array<{id: number, scale: number}>, of = adapters) => {
            try {
                resolveLoraScales(of, requested);
            } catch (error) {
                return error;
            }
            return null;
        };
        expect(refusal([{id: 0, scale: 1}, {id: 2, scale: 1}])).toMatchObject({
            status: 400, param: "lora[1].id", code: "invalid_value", message: expect.stringContaining("this model's are 0 to 1")
        });
        expect(refusal([{id: 0, scale: 1}], [])).toBeInstanceOf(BadRequestError);
        expect(refusal([{id: 0, scale: 1}], [])).toMatchObject({param: "lora[0].id", message: expect.stringContaining("has no LoRA adapters")});
    });
});

describe("adapterSetKey and partitionUnderAdapters", () => {
    it("name the scales the context was created with \"\", any others by their values (0 and -0 alike)", () => {
        expect(adapterSetKey([1, 0.5], [1, 0.5])).toBe("");
        expect(adapterSetKey([0, 0.5], [-0, 0.5])).toBe("");
        expect(adapterSetKey([0, 0.5], [1, 0.5])).toBe("lora:[0,0.5]");
        expect(adapterSetKey([-0, 0.5], [1, 0.5])).toBe(adapterSetKey([0, 0.5], [1, 0.5]));
        expect(adapterSetKey([], [])).toBe("");
    });

    it("keep the request's partition under the default set and set every other set's caches apart", () => {
        expect(partitionUnderAdapters(undefined, "")).toBeUndefined();
        expect(partitionUnderAdapters("key-a", "")).toBe("key-a");
        const tuned = partitionUnderAdapters("key-a", "lora:[0]");
        expect(tuned).not.toBe("key-a");
        expect(tuned).not.toBe(partitionUnderAdapters("key-b", "lora:[0]"));
        expect(tuned).not.toBe(partitionUnderAdapters("key-a", "lora:[0.5]"));
        expect(partitionUnderAdapters(undefined, "lora:[0]")).not.toBe(partitionUnderAdapters("", "lora:[0]"));
    });
});
