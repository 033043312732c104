import {setImmediate as nextTurn} from "node:timers/promises";
import type {ChatHistoryItem, LlamaModel} from "node-llama-cpp";
import {describe, expect, it} from "vitest";
import {countTokensAtLeast, historyTexts, refuseHistoryBeyondContext, refuseTextBeyondContext} from "../../../src/engine/promptSizeGuard.js";
import {ContextLengthExceededError} from "../../../src/errors.js";

/** A tokenizer double: one token per word, and a record of every text it was given. */
function wordModel() {
    const calls: string[] = [];
    const model = {tokenize: (text: string) => {
        calls.push(text);
        return text.split(/\s+/).filter(Boolean);
    }} as unknown as LlamaModel;
    return {model, calls};
}

const words = (count: number) => Array.from({length: count}, (_, index) => `word${index % 97}`).join(" ");

describe("refuseTextBeyondContext", () => {
    it("leaves text that may fit (up to one slice, or 16 characters per context token) to the exact count, without tokenizing it", async () => {
        const {model, calls} = wordModel();
        await refuseTextBeyondContext(model, ["a ".repeat(8_000), "b ".repeat(8_000)], 10, {param: "messages"});
        await refuseTextBeyondContext(model, ["a ".repeat(40_000)], 5_000, {param: "messages"});
        expect(calls).toEqual([]);
    });

    it("refuses megabytes that cannot fit after tokenizing about a slice of them, as a 400 context_length_exceeded", async () => {
        const {model, calls} = wordModel();
        const huge = words(1_000_000);
        const error = await refuseTextBeyondContext(model, [huge], 4096, {param: "messages"}).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(ContextLengthExceededError);
        expect(error).toMatchObject({param: "messages", code: "context_length_exceeded"});
        expect((error as Error).message).toMatch(/^This model's maximum context length is 4096 tokens\. However, your messages resulted in more than \d+ tokens/);
        expect(calls.join("").length).toBeLessThan(3 * 32_768);
    });

    it("counts across texts and names the input it was given", async () => {
        const {model} = wordModel();
        const error = await refuseTextBeyondContext(model, [words(6_000), words(6_000)], 5_000, {param: "input[3]"})
            .catch((caught: unknown) => caught) as ContextLengthExceededError;
        expect(error).toMatchObject({param: "input[3]", code: "context_length_exceeded"});
        expect(error.message).toContain("your input[3] resulted in more than");
    });

    it("passes text that fits on to the exact count", async () => {
        const {model} = wordModel();
        await expect(refuseTextBeyondContext(model, [words(20_000)], 20_000, {param: "prompt"})).resolves.toBeUndefined();
    });

    it("cuts slices before whitespace, never inside a surrogate pair, and loses no character", async () => {
        const {model, calls} = wordModel();
        const text = words(30_000);
        await countTokensAtLeast(model, [text], Infinity);
        expect(calls.length).toBeGreaterThan(3);
        expect(calls.join("")).toBe(text);
        for (const slice of calls.slice(1))
            expect(slice[0]).toBe(" ");

        const emoji = wordModel();
        const noSpaces = "😀".repeat(40_000);
        await countTokensAtLeast(emoji.model, [noSpaces], Infinity);
        expect(emoji.calls.join("")).toBe(noSpaces);
        for (const slice of emoji.calls)
            expect(slice).not.toMatch(/^[\udc00-\udfff]|[\ud800-\udbff]$/);
    });

    it("lets the event loop serve others between slices", async () => {
        const {model} = wordModel();
        let turns = 0;
        let counting = true;
        const others = (async () => {
            while (counting) {
                turns++;
                await nextTurn();
            }
        })();
        await countTokensAtLeast(model, [words(50_000)], Infinity);
        counting = false;
        await others;
        expect(turns).toBeGreaterThan(3);
    });
});

describe("refuseHistoryBeyondContext", () => {
    it("refuses more messages than the context has tokens without tokenizing or rendering them", async () => {
        const {model, calls} = wordModel();
        const history: ChatHistoryItem[] = Array.from({length: 5}, (_, index) =>
            index % 2 === 0 ? {type: "user", text: "a"} : {type: "model", response: ["a"]});
        const error = await refuseHistoryBeyondContext(model, history, 4, "messages").catch((caught: unknown) => caught) as ContextLengthExceededError;
        expect(error).toBeInstanceOf(ContextLengthExceededError);
        expect(error.message).toContain("5 messages of at least one token each");
        expect(calls).toEqual([]);
        await expect(refuseHistoryBeyondContext(model, history, 5, "messages")).resolves.toBeUndefined();
    });

    it("counts each tool call of a model turn as a message, and still counts the text", async () => {
        const {model} = wordModel();
        const calls = Array.from({length: 3}, () => ({type: "functionCall" as const, name: "f", params: {}, result: "r"}));
        await expect(refuseHistoryBeyondContext(model, [{type: "user", text: "go"}, {type: "model", response: calls}], 3, "messages")).rejects.toThrow("4 messages");
        await expect(refuseHistoryBeyondContext(model, [{type: "user", text: words(20_000)}], 5_000, "messages")).rejects.toThrow("resulted in more than");
    });
});

describe("historyTexts", () => {
    it("collects every message's text, tool-call arguments and results included", () => {
        const history: ChatHistoryItem[] = [
            {type: "system", text: "be brief"},
            {type: "user", text: "weather?"},
            {type: "model", response: ["checking", {type: "functionCall", name: "weather", params: {city: "Oslo", days: [1, 2]}, result: {sky: "grey"}}]},
            {type: "model", response: [{type: "functionCall", name: "log", params: null, result: "a long log"}]}
        ];
        expect(historyTexts(history)).toEqual(["be brief", "weather?", "checking", "city", "Oslo", "days", "sky", "grey", "a long log"]);
    });
});
