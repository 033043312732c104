// Decode batches against the real node-llama-cpp, through the server: concurrent streams share
// every batch instead of one stream sitting out each batch in turn, and a request's prompt shares
// its batch with the first sampled token.
import {LlamaModel, type LlamaContext} from "node-llama-cpp";
import {afterAll, beforeAll, describe, expect, it, vi} from "vitest";
import {buildTinyChatModel} from "../../fixtures/gguf/tinyModels.js";
import {endOfTurnBanned} from "../support/endOfTurn.js";
import {startTestServer, type TestServer} from "../support/testServer.js";

/** The size of every batch the server's contexts decode, and the sequences in it, in batch order. */
const batchSizes: number[] = [];
const batchSequences: number[][] = [];
type NativeBatching = {initBatch(size: number): unknown, addToBatch(sequenceId: number, ...rest: unknown[]): unknown};
const createContext = LlamaModel.prototype.createContext;
vi.spyOn(LlamaModel.prototype, "createContext").mockImplementation(async function (this: LlamaModel, ...args) {
    const context: LlamaContext = await createContext.apply(this, args);
    const native = (context as unknown as {_ctx: NativeBatching})._ctx;
    const initBatch = native.initBatch.bind(native);
    const addToBatch = native.addToBatch.bind(native);
    Object.defineProperty(native, "initBatch", {configurable: true, value: (size: number) => {
        batchSizes.push(size);
        batchSequences.push([]);
        return initBatch(size);
    }});
    Object.defineProperty(native, "addToBatch", {configurable: true, value: (sequenceId: number, ...rest: unknown[]) => {
        batchSequences.at(-1)!.push(sequenceId);
        return addToBatch(sequenceId, ...rest);
    }});
    return context;
});

/**
 * Streams a greedy reply of 200 tokens, its end of turn banned (one that ended within three chunks
 * would leave its caller waiting for ever, one that ended early would share few batches); calls
 * `started` at its third chunk.
 */
async function streamReply(server: TestServer, model: string, story: number, started?: () => void): Promise<void> {
    const stream = await server.client().chat.completions.create({
        model, messages: [{role: "user", content: `Tell me a long story, number ${story}.`}],
        max_tokens: 200, temperature: 0, stream: true, logit_bias: await endOfTurnBanned(server.url, model)
    });
    let chunks = 0;
    for await (const _chunk of stream) {
        if (++chunks === 3)
            started?.();
    }
}

describe("decode batches on one model", () => {
    let server: TestServer;
    const model = "tiny-chat";

    beforeAll(async () => {
        // Plain decoding's batches: lookup's drafts would ride in them (their batches: test/e2e/engine/speculationIdentity.test.ts).
        server = await startTestServer({[model]: await buildTinyChatModel()}, {parallel: 4, ctxSize: 4096, lookupDecoding: false});
    });
    afterAll(async () => server?.stop());

    it("decode in shared batches: one batch per generated token, not one per three", async () => {
        const client = server.client();
        const replies = await Promise.all([1, 2, 3, 4].map(async (seed) => {
            const stream = await client.chat.completions.create({
                model, messages: [{role: "user", content: `Tell me a long story, number ${seed}.`}],
                max_tokens: 48, temperature: 1, seed, stream: true, stream_options: {include_usage: true}
            });
            let usage = null;
            for await (const chunk of stream)
                usage = chunk.usage ?? usage;
            return usage!.completion_tokens;
        }));
        const longest = Math.max(...replies);
        expect(longest).toBeGreaterThanOrEqual(32);

        // Each prompt is longer than 4 tokens: the small batches are generation steps. Each step of
        // the longest stream needs one batch; a stream sitting out would add a third more.
        const steps = batchSizes.filter((size) => size <= 4);
        expect(steps.length).toBeLessThanOrEqual(longest + 3);
        expect(steps.filter((size) => size === 4).length).toBeGreaterThanOrEqual(Math.min(...replies) - 3);
    });

    it("evaluates the rest of the prompt in the same batch as the first token", async () => {
        batchSizes.length = 0;
        const reply = await server.client().chat.completions.create({
            model, messages: [{role: "user", content: "A prompt no other request has sent."}], max_tokens: 12, temperature: 0
        });
        const usage = reply.usage!;
        const uncached = usage.prompt_tokens - (usage.prompt_tokens_details?.cached_tokens ?? 0);
        expect(uncached).toBeGreaterThan(1);
        expect(batchSizes[0]).toBe(uncached);
        // After the prompt's batch, one per token fed back: the last sampled one never is, unless
        // an end-of-generation token (not counted in usage) followed it.
        const endToken = reply.choices[0]!.finish_reason === "length" ? 0 : 1;
        expect(batchSizes.length).toBe(usage.completion_tokens + endToken);
    });

    it("evaluates a long prompt in whole batches with a keep-alive after each, the rest with the first token", async () => {
        batchSizes.length = 0;
        const response = await fetch(`${server.url}/chat/completions`, {
            method: "POST", headers: {"Content-Type": "application/json"},
            body: JSON.stringify({
                model, messages: [{role: "user", content: "Once more, with feeling. ".repeat(50)}],
                max_tokens: 4, temperature: 0, stream: true, stream_options: {include_usage: true}
            })
        });
        expect(response.status).toBe(200);
        const events = (await response.text()).split("\n\n");
        const usage = JSON.parse(events.findLast((event) => event.includes("\"usage\":{"))!.slice("data: ".length)).usage;
        const uncached = usage.prompt_tokens - (usage.prompt_tokens_details?.cached_tokens ?? 0);

        const batch = batchSizes[0]!;
        expect(batch).toBeLessThan(uncached);
        const wholeBatches = Math.ceil(uncached / batch) - 1;
        expect(batchSizes.slice(0, wholeBatches + 1)).toEqual([...Array(wholeBatches).fill(batch), uncached - wholeBatches * batch]);
        const cached = usage.prompt_tokens - uncached;
        expect(events.filter((event) => event.startsWith(": processing prompt"))).toEqual(
            Array.from({length: wholeBatches}, (_, index) => `: processing prompt ${cached + (index + 1) * batch}/${usage.prompt_tokens}`)
        );
    });
});

describe("decode batches as requests join others mid-generation", () => {
    let server: TestServer;
    const model = "tiny-chat";

    beforeAll(async () => {
        server = await startTestServer({[model]: await buildTinyChatModel()}, {parallel: 4, ctxSize: 1024, lookupDecoding: false});
    });
    afterAll(async () => server?.stop());

    // llama.cpp computes a batch of several sequences in one pass only while their ids go up by one
    // in batch order; a request that arrives mid-generation must not put its sequence first.
    it("lists a batch's sequences in increasing order, also after requests joined mid-generation", async () => {
        // Where a late request lands in a step is down to timing: three tries.
        for (let round = 0; round < 3; round++) {
            batchSequences.length = 0;
            const early = [1, 2].map((story) => {
                let started!: () => void;
                const streaming = new Promise<void>((resolve) => started = resolve);
                return {reply: streamReply(server, model, 10 * round + story, () => started()), streaming};
            });
            await Promise.all(early.map(({streaming}) => streaming));
            await Promise.all([...early.map(({reply}) => reply), streamReply(server, model, 10 * round + 3), streamReply(server, model, 10 * round + 4)]);

            const shared = batchSequences.filter((sequences) => sequences.length > 1);
            expect(shared.filter((sequences) => sequences.length === 4).length).toBeGreaterThan(10);
            for (const sequences of shared)
                expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
        }
    });
});
