import fs from "node:fs/promises";
import path from "node:path";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import OpenAI from "openai";
import type {ConfigInput} from "../../src/config.js";
import {buildTinyChatModel} from "../fixtures/gguf/tinyModels.js";
import {endOfTurnBanned} from "./support/endOfTurn.js";
import {hasSharedModels, sharedModels} from "./support/sharedModels.js";
import {startTestServer, type TestServer} from "./support/testServer.js";

/**
 * Resolves once `count` requests hold the model (generating, or waiting in its queue): waiting on
 * that instead of a pause, so a slow machine cannot send the next request before this one is in.
 */
async function heldBy(server: TestServer, model: string, count: number): Promise<void> {
    while ((server.registry.occupancy().find((entry) => entry.id === model)?.holds ?? 0) !== count)
        await new Promise((resolve) => setTimeout(resolve, 5));
}

/**
 * One sequence and a queue of one, so a generation that failed to stop, or a queued request that
 * failed to leave, would show up as a 503 for the next client.
 */
describe("aborts free their sequence and queue slot at once", () => {
    let server: TestServer;
    let client: OpenAI;
    let noEnd: Record<string, number>;
    const model = "tiny-chat";
    const messages = [{role: "user" as const, content: "Tell me a long story about the cat."}];

    beforeAll(async () => {
        server = await startTestServer({[model]: await buildTinyChatModel()}, {parallel: 1, maxQueue: 1, ctxSize: 2048});
        client = server.client();
        noEnd = await endOfTurnBanned(server.url, model);
    });
    afterAll(async () => server?.stop());

    /** A streamed generation long enough to hold the only sequence for seconds (its end of turn banned: it runs until aborted). */
    async function holdSequence(controller: AbortController) {
        const stream = await client.chat.completions.create(
            {model, messages, temperature: 1, seed: 7, stream: true, logit_bias: noEnd}, {signal: controller.signal});
        const iterator = stream[Symbol.asyncIterator]();
        await iterator.next(); // the role chunk: the request holds the sequence now
        return iterator;
    }

    /** Retries on 503 for a short while: the server learns of a closed socket asynchronously. */
    async function completeSoon() {
        for (let attempt = 0; ; attempt++) {
            try {
                return await client.chat.completions.create({model, messages, max_tokens: 2, temperature: 0});
            } catch (error) {
                if (!(error instanceof OpenAI.APIError) || error.status !== 503 || attempt >= 10)
                    throw error;
                await new Promise((resolve) => setTimeout(resolve, 50));
            }
        }
    }

    it("a client that disconnects mid-stream stops its generation; the next request is served", async () => {
        const controller = new AbortController();
        await holdSequence(controller);
        controller.abort();
        const reply = await completeSoon();
        expect(reply.usage!.completion_tokens).toBe(2);
    });

    it("answers 503 server_busy with Retry-After once the queue is full, and serves everyone else", async () => {
        const holder = new AbortController();
        await holdSequence(holder);
        const queued = client.chat.completions.create({model, messages, max_tokens: 2, temperature: 0});
        await heldBy(server, model, 2);

        const rejected = await client.chat.completions.create({model, messages, max_tokens: 2}).catch((error: unknown) => error);
        expect(rejected).toBeInstanceOf(OpenAI.APIError);
        expect((rejected as InstanceType<typeof OpenAI.APIError>).status).toBe(503);
        expect((rejected as InstanceType<typeof OpenAI.APIError>).code).toBe("server_busy");
        expect((rejected as InstanceType<typeof OpenAI.APIError>).headers?.get("retry-after")).toMatch(/^\d+$/);

        holder.abort();
        expect((await queued).usage!.completion_tokens).toBe(2);
    });

    it("a queued request whose client goes away leaves the queue at once", async () => {
        const holder = new AbortController();
        await holdSequence(holder);
        const leaver = new AbortController();
        const left = client.chat.completions.create({model, messages, max_tokens: 2}, {signal: leaver.signal}).catch((error: unknown) => error);
        await heldBy(server, model, 2);
        leaver.abort();
        await left;
        await heldBy(server, model, 1);

        // The queue slot is free again, so this one waits instead of getting 503.
        const waiting = client.chat.completions.create({model, messages, max_tokens: 2, temperature: 0});
        await heldBy(server, model, 2);
        holder.abort();
        expect((await waiting).usage!.completion_tokens).toBe(2);
    });
});

/**
 * The cache a request needs can be on a sequence still in use, with free ones beside it: an IDE's
 * autocomplete cancels its request at every keystroke and sends the next at once, before the
 * cancelled generation has stopped (the server may not even have seen the cancel yet); parallel
 * agents send the same long system prompt. On the bench model (steps of ~10 ms, a window the next
 * request lands in) such a request went to an empty sequence and evaluated its whole prompt again.
 */
describe.runIf(hasSharedModels)("a prompt whose prefix a sequence in use holds", () => {
    let server: TestServer;
    beforeAll(async () => {
        // stories260K for comparing replies: random weights leave near-ties that a batch evaluated
        // in other pieces (another kernel, another summation order) can tip either way.
        server = await startTestServer({bench: sharedModels.bench, stories: sharedModels.stories260K}, {parallel: 4, ctxSize: 2048});
    });
    afterAll(async () => server?.stop());

    async function streamStarted(request: () => Promise<AsyncIterable<unknown>>) {
        const iterator = (await request())[Symbol.asyncIterator]();
        for (let chunk = 0; chunk < 3; chunk++)
            await iterator.next();
    }

    it("the next keystroke after a cancel evaluates only what is new", async () => {
        const client = server.client();
        const code = Array.from({length: 60}, (_, line) => `const value${line} = compute(${line}, "item ${line}");`).join("\n");
        for (let keystroke = 0; keystroke < 3; keystroke++) {
            const controller = new AbortController();
            await streamStarted(() => client.completions.create(
                {model: "bench", prompt: `${code}\n// keystroke ${keystroke}`, max_tokens: 200, temperature: 0, stream: true},
                {signal: controller.signal}));
            controller.abort();
            const next = await client.completions.create({model: "bench", prompt: `${code}\n// keystroke ${keystroke}x`, max_tokens: 1, temperature: 0});
            const usage = next.usage as {prompt_tokens: number, prompt_tokens_details?: {cached_tokens: number}};
            expect(usage.prompt_tokens_details?.cached_tokens, `keystroke ${keystroke}`).toBeGreaterThan(usage.prompt_tokens - 8);
        }
    });

    it("a second agent with the same system prompt reuses it while the first still generates, and both replies stay their own", async () => {
        const client = server.client();
        const system = {role: "system" as const, content: `You are agent number ${Date.now()}. ${"Follow the rules of the house carefully. ".repeat(60)}`};
        const ask = (content: string, maxTokens: number) =>
            client.chat.completions.create({model: "stories", messages: [system, {role: "user", content}], max_tokens: maxTokens, temperature: 0});
        const alone = (await ask("Second question.", 8)).choices[0]!.message.content;

        const first = new AbortController();
        await streamStarted(() => client.chat.completions.create(
            {model: "stories", messages: [system, {role: "user", content: "First question."}], max_tokens: 300, temperature: 0, stream: true},
            {signal: first.signal}));
        const second = await ask("Second question.", 8);
        first.abort();
        // All but the question (a few characters a token in this vocabulary) comes from the first agent's sequence.
        expect(second.usage!.prompt_tokens_details?.cached_tokens).toBeGreaterThan(second.usage!.prompt_tokens - 32);
        expect(second.choices[0]!.message.content).toBe(alone);
    });
});

/**
 * A stream holding the only sequence of a fresh server, and a request queued behind it; `drain`
 * reads the stream to its end and returns its finish reason.
 */
async function streamAndQueued(config: ConfigInput, maxTokens: number) {
    const model = "tiny-chat";
    const server = await startTestServer({[model]: await buildTinyChatModel()}, {parallel: 1, maxQueue: 4, ctxSize: 2048, ...config});
    const client = server.client();
    const messages = [{role: "user" as const, content: "Tell me a long story about the cat."}];
    // The end of turn banned: the stream must still hold the sequence when the test acts.
    const logit_bias = await endOfTurnBanned(server.url, model);
    const stream = await client.chat.completions.create({model, messages, max_tokens: maxTokens, temperature: 1, seed: 7, stream: true, logit_bias});
    const iterator = stream[Symbol.asyncIterator]();
    await iterator.next(); // the stream holds the only sequence
    const queued = fetch(`${server.url}/chat/completions`, {
        method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify({model, messages, max_tokens: 2})
    });
    await heldBy(server, model, 2); // it waits in the queue
    const drain = async () => {
        let finish: string | null | undefined;
        for (let step = await iterator.next(); step.done !== true; step = await iterator.next())
            finish = step.value.choices[0]?.finish_reason ?? finish;
        return finish;
    };
    return {server, client, model, messages, queued, drain};
}

describe("shutdown with a request queued", () => {
    it("answers the queued request 503 shutting_down at once, while the running stream goes on to its end", async () => {
        const {server, queued, drain} = await streamAndQueued({}, 400);
        try {
            // A grace period far beyond the test's timeout: shutdown must end with the last reply,
            // though both clients keep their connections alive.
            const closing = server.close(600_000);
            const refused = await queued;
            expect(refused.status).toBe(503);
            expect((await refused.json() as {error: {code: string}}).error.code).toBe("shutting_down");
            expect(await drain()).toMatch(/^(length|stop)$/);
            await closing;
        } finally {
            await server.stop();
        }
    });

    it("ends replies still running when the grace period is over with shutting_down: an SSE error event, or a 503", async () => {
        const model = "tiny-chat";
        const server = await startTestServer({[model]: await buildTinyChatModel()}, {parallel: 2, ctxSize: 2048});
        const client = server.client();
        const messages = [{role: "user" as const, content: "Tell me a long story about the cat."}];
        try {
            // The end of turn banned: both replies must still be running when the grace period ends.
            const logit_bias = await endOfTurnBanned(server.url, model);
            const stream = await client.chat.completions.create({model, messages, max_tokens: 1800, temperature: 0, stream: true, logit_bias});
            const iterator = stream[Symbol.asyncIterator]();
            await iterator.next();
            const whole = fetch(`${server.url}/chat/completions`, {
                method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify({model, messages, max_tokens: 1800, temperature: 0, logit_bias})
            });
            await heldBy(server, model, 2);

            const closing = server.close(0);
            const streamError = await (async () => {
                for (let step = await iterator.next(); step.done !== true; step = await iterator.next())
                    expect(step.value.choices[0]?.finish_reason ?? null).toBeNull();
            })().catch((error: unknown) => error);
            expect(streamError).toBeInstanceOf(OpenAI.APIError);
            expect((streamError as Error).message).toContain("shutting down");

            const refused = await whole;
            expect(refused.status).toBe(503);
            expect((await refused.json() as {error: {code: string}}).error.code).toBe("shutting_down");
            await closing;
        } finally {
            await server.stop();
        }
    });
});

describe("a model whose file leaves the folder while requests wait for it", () => {
    it("answers the queued request 503 model_unloaded with Retry-After, lets the running stream end, then 404s", async () => {
        const {server, client, model, messages, queued, drain} = await streamAndQueued({rescanIntervalMs: 100}, 400);
        try {
            await fs.rm(path.join(server.modelsDir, `${model}.gguf`));
            const refused = await queued;
            expect(refused.status).toBe(503);
            expect(refused.headers.get("retry-after")).toBe("1");
            expect(await refused.json()).toMatchObject({error: {code: "model_unloaded", param: "model", message: expect.stringContaining("left the models folder")}});
            expect(await drain()).toMatch(/^(length|stop)$/);
            const gone = await client.chat.completions.create({model, messages, max_tokens: 2}).catch((error: unknown) => error);
            expect(gone).toBeInstanceOf(OpenAI.NotFoundError);
        } finally {
            await server.stop();
        }
    });
});
