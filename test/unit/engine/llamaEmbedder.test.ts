import type {LlamaEmbeddingContext, LlamaModel} from "node-llama-cpp";
import {describe, expect, it} from "vitest";
import {LlamaEmbedder} from "../../../src/engine/llamaEmbedder.js";
import {ServerBusyError} from "../../../src/errors.js";

/** What the double's vector for an input of n tokens, [n, 1], comes back as: scaled to length 1. */
const unitVector = (n: number) => [n / Math.hypot(n, 1), 1 / Math.hypot(n, 1)];

/** An embedder over doubles: each input's evaluation waits until the test lets it finish. */
function embedder(maxQueue: number) {
    const evaluated: number[][] = [];
    const pending: Array<() => void> = [];
    const model = {
        fileInfo: {metadata: {tokenizer: {ggml: {tokens: Array(100).fill("t")}}}},
        embeddingVectorSize: 2,
        tokenize: (text: string) => text.split(" ").map((word) => word.length)
    } as unknown as LlamaModel;
    const context = {
        calculateInputLength: (tokens: readonly number[]) => tokens.length + 2,
        getEmbeddingFor: (tokens: number[]) => new Promise((resolve) => pending.push(() => {
            evaluated.push(tokens);
            resolve({vector: [tokens.length, 1]});
        })),
        dispose: async () => {}
    } as unknown as LlamaEmbeddingContext;
    const finishNext = async () => {
        while (pending.length === 0)
            await new Promise((resolve) => setImmediate(resolve));
        pending.shift()!();
    };
    return {embedder: new LlamaEmbedder(model, context, 64, maxQueue), evaluated, finishNext};
}

describe("LlamaEmbedder", () => {
    it("stops evaluating a request's inputs once its client has gone, and frees the slot for the next", async () => {
        const {embedder: subject, evaluated, finishNext} = embedder(1);
        const client = new AbortController();
        const leaving = subject.embed(["a", "bb", "ccc", "dddd"], client.signal);
        await finishNext();
        client.abort(new Error("client disconnected"));
        await finishNext();
        await expect(leaving).rejects.toThrow("client disconnected");
        expect(evaluated).toHaveLength(2);

        const next = subject.embed(["hello world"], new AbortController().signal);
        await finishNext();
        // Usage counts the tokens the model adds around the input too (the double adds two).
        await expect(next).resolves.toEqual({vectors: [unitVector(2)], promptTokens: 4});
    });

    it("embeds one request at a time: the next waits in the queue, and one past --max-queue gets a 503", async () => {
        const {embedder: subject, finishNext} = embedder(1);
        const signal = new AbortController().signal;
        const first = subject.embed(["a"], signal);
        await new Promise((resolve) => setImmediate(resolve));
        const second = subject.embed(["b c"], signal);
        await new Promise((resolve) => setImmediate(resolve));
        await expect(subject.embed(["d"], signal)).rejects.toBeInstanceOf(ServerBusyError);

        await finishNext();
        await expect(first).resolves.toMatchObject({vectors: [unitVector(1)]});
        await finishNext();
        await expect(second).resolves.toMatchObject({vectors: [unitVector(2)]});
    });

    it("refuses a bad input with a 400 before waiting for the slot", async () => {
        const {embedder: subject} = embedder(0);
        const signal = new AbortController().signal;
        void subject.embed(["a"], signal);
        await new Promise((resolve) => setImmediate(resolve));
        await expect(subject.embed(["a", [500]], signal)).rejects.toMatchObject({
            status: 400, param: "input[1]", code: "invalid_value", message: expect.stringContaining("not in this model's vocabulary")
        });
        await expect(subject.embed([[]], signal)).rejects.toMatchObject({status: 400, param: "input[0]", code: "invalid_value"});
    });
});
