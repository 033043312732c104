import {describe, expect, it} from "vitest";
import {ModelAliases} from "../../../src/models/modelAliases.js";

describe("ModelAliases", () => {
    it("resolves nothing without aliases", () => {
        expect(new ModelAliases().resolve("gpt-4o")).toBeUndefined();
    });

    it("resolves an exact alias, and only that name", () => {
        const aliases = new ModelAliases([{name: "gpt-4o", model: "qwen"}]);
        expect(aliases.resolve("gpt-4o")).toBe("qwen");
        expect(aliases.resolve("gpt-4o-mini")).toBeUndefined();
        expect(aliases.resolve("GPT-4O")).toBeUndefined();
    });

    it("matches '*' against any run of characters, slashes and dots included, and nothing else as special", () => {
        const aliases = new ModelAliases([{name: "claude-*", model: "qwen"}, {name: "a.b*(x)", model: "other"}]);
        expect(aliases.resolve("claude-")).toBe("qwen");
        expect(aliases.resolve("claude-sonnet-4.5/beta")).toBe("qwen");
        expect(aliases.resolve("my-claude-x")).toBeUndefined();
        expect(aliases.resolve("a.b-(x)")).toBe("other");
        expect(aliases.resolve("aXb-(x)")).toBeUndefined();
    });

    it("prefers an exact alias to any pattern, and the most specific pattern to the others, whatever the order given", () => {
        const aliases = new ModelAliases([
            {name: "*", model: "fallback"},
            {name: "claude-*", model: "big"},
            {name: "claude-haiku-*", model: "small"},
            {name: "claude-haiku-4-5", model: "exact"}
        ]);
        expect(aliases.resolve("claude-haiku-4-5")).toBe("exact");
        expect(aliases.resolve("claude-haiku-4-6")).toBe("small");
        expect(aliases.resolve("claude-sonnet-4-5")).toBe("big");
        expect(aliases.resolve("gpt-5")).toBe("fallback");
    });

    it("takes the first of two equally specific patterns", () => {
        const aliases = new ModelAliases([{name: "gpt-*", model: "first"}, {name: "*mini", model: "second"}]);
        expect(aliases.resolve("gpt-4o-mini")).toBe("first");
    });

    it("lists exact aliases as entries, and every name leading to a model", () => {
        const aliases = new ModelAliases([{name: "gpt-4o", model: "qwen"}, {name: "claude-*", model: "qwen"}, {name: "small", model: "llama"}]);
        expect(aliases.exactAliases()).toEqual([{name: "gpt-4o", model: "qwen"}, {name: "small", model: "llama"}]);
        expect(aliases.namesFor("qwen")).toEqual(["gpt-4o", "claude-*"]);
        expect(aliases.namesFor("nothing")).toEqual([]);
        expect(aliases.size).toBe(3);
    });

    it("accepts a name given twice for the same model, and refuses one given for two models", () => {
        expect(new ModelAliases([{name: "a", model: "m"}, {name: "a", model: "m"}]).size).toBe(1);
        expect(() => new ModelAliases([{name: "a", model: "m"}, {name: "a", model: "n"}]))
            .toThrow("--model-alias 'a' is given twice, for 'm' and for 'n': keep one.");
    });
});
