import {describe, expect, it} from "vitest";
import type {GenerationEvent, GenerationResult} from "../../../src/engine/generationEvents.js";
import {consumeGeneration} from "../../../src/http/consumeGeneration.js";

const result: GenerationResult = {finishReason: "stop", promptTokens: 3, cachedTokens: 0, completionTokens: 2};

async function* generation(log: string[]): AsyncGenerator<GenerationEvent, GenerationResult> {
    try {
        yield {type: "progress", evaluatedTokens: 512, totalTokens: 600};
        yield {type: "text", text: "Hello"};
        yield {type: "toolCall", index: 0, name: "lookup"};
        yield {type: "toolArguments", index: 0, text: "{}"};
        return result;
    } finally {
        log.push("cleaned up");
    }
}

describe("consumeGeneration", () => {
    it("hands each event to its handler in order and returns the generation's result", async () => {
        const log: string[] = [];
        const returned = await consumeGeneration(generation(log), {
            text: (text) => log.push(`text ${text}`),
            toolCall: (index, name) => log.push(`call ${index} ${name}`),
            toolArguments: (index, text) => log.push(`arguments ${index} ${text}`),
            keepAlive: (comment) => log.push(comment)
        });
        expect(returned).toEqual(result);
        expect(log).toEqual(["processing prompt 512/600", "text Hello", "call 0 lookup", "arguments 0 {}", "cleaned up"]);
    });

    it("closes the generation when a handler throws, so its cleanup runs before the error goes on", async () => {
        const log: string[] = [];
        const failing = consumeGeneration(generation(log), {text: () => {
            throw new Error("handler failed");
        }});
        await expect(failing).rejects.toThrow("handler failed");
        expect(log).toEqual(["cleaned up"]);
    });
});
