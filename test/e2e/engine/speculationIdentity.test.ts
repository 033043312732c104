// Speculation never changes what is generated (issue 42): at temperature 0 every reply is the same
// byte for byte with drafts (lookup in the request's text, the model's lookup pool, a prediction)
// as without, on each template model the e2e suite uses, through the official client: streamed and
// not, with stop sequences, `n`, logprobs, tools and json_schema. Grammars and logprobs take no
// drafts: their replies are pinned the same too; a prediction beside json_schema is reported as all
// rejected tokens, and beside n, logprobs or tools it is refused as OpenAI refuses it. Every reply is
// capped and greedy, so each is the same on every run; the server with speculation sees each prompt
// several times, so its pool drafts too.
import type OpenAI from "openai";
import type {ChatCompletionCreateParamsNonStreaming, ChatCompletionTool} from "openai/resources/chat/completions";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {buildTinyChatModel} from "../../fixtures/gguf/tinyModels.js";
import {parsePrometheusText} from "../../http/support/prometheusText.js";
import {hasSharedModels, sharedModels} from "../support/sharedModels.js";
import {fixedDraftCost, startTestServer, type TestServer} from "../support/testServer.js";

type Choice = {text: string, finish: string | null, calls: Array<{name: string, arguments: string}>, tokens?: string[]};
type Reply = {choices: Choice[], details?: {accepted_prediction_tokens?: number, rejected_prediction_tokens?: number}};
type Body = Omit<ChatCompletionCreateParamsNonStreaming, "model" | "messages"> & {prompt?: string};

const tools: ChatCompletionTool[] = [{type: "function", function: {
    name: "get_weather", description: "Current weather for a city",
    parameters: {type: "object", properties: {city: {type: "string", maxLength: 12}, days: {type: "integer"}}, required: ["city", "days"], additionalProperties: false}
}}];
const schema = {type: "object", properties: {name: {type: "string", maxLength: 16}, count: {type: "integer"}}, required: ["name", "count"], additionalProperties: false};
// A prompt that repeats (lookup finds runs in it at once) and one that does not.
const prompts = ["one two three four one two three four one two three four one two", "Tell me a story about a lighthouse."];

async function complete(client: OpenAI, {prompt = prompts[1]!, ...body}: Body): Promise<Reply> {
    const completion = await client.chat.completions.create({model: "m", messages: [{role: "user", content: prompt}], temperature: 0, ...body, stream: false});
    return {
        choices: completion.choices.map((choice) => ({
            text: choice.message.content ?? "", finish: choice.finish_reason,
            calls: (choice.message.tool_calls ?? []).map((call) => call.type === "function" ? {name: call.function.name, arguments: call.function.arguments} : {name: "", arguments: ""}),
            ...(choice.logprobs?.content == null ? {} : {tokens: choice.logprobs.content.map((entry) => entry.token)})
        })),
        details: completion.usage?.completion_tokens_details as Reply["details"]
    };
}

/** A streamed reply assembled as the SDKs do: content appended, calls by index, arguments appended. */
async function stream(client: OpenAI, {prompt = prompts[1]!, ...body}: Body): Promise<Reply> {
    const chunks = await client.chat.completions.create({
        model: "m", messages: [{role: "user", content: prompt}], temperature: 0, ...body, stream: true, stream_options: {include_usage: true}
    });
    const choice: Choice = {text: "", finish: null, calls: []};
    let details: Reply["details"];
    for await (const chunk of chunks) {
        const delta = chunk.choices[0]?.delta;
        choice.text += delta?.content ?? "";
        choice.finish = chunk.choices[0]?.finish_reason ?? choice.finish;
        for (const fragment of delta?.tool_calls ?? []) {
            choice.calls[fragment.index] ??= {name: fragment.function?.name ?? "", arguments: ""};
            choice.calls[fragment.index]!.arguments += fragment.function?.arguments ?? "";
        }
        details = (chunk.usage?.completion_tokens_details as Reply["details"]) ?? details;
    }
    return {choices: [choice], details};
}

function identityMatrix(label: string, modelFile: () => Promise<string>, maxTokens: number, withTools = true) {
    describe(`speculation keeps every reply the same on ${label}`, () => {
        let plain: TestServer;
        let speculating: TestServer;

        beforeAll(async () => {
            const file = await modelFile();
            // Room for the longest prompt here (Llama 3.2's tool instructions) and a capped reply.
            plain = await startTestServer({m: file}, {parallel: 2, ctxSize: 2048, lookupDecoding: false});
            speculating = await startTestServer({m: file}, {parallel: 2, ctxSize: 2048, lookupDecoding: true, ...fixedDraftCost});
        });
        afterAll(async () => {
            await plain?.stop();
            await speculating?.stop();
        });

        /** The reply without speculation, and the same request's replies with it: each alike, streamed and not. */
        const expectSame = async (body: Body, predictions: string[] = []) => {
            const expected = await complete(plain.client(), body);
            const replies: Reply[] = [];
            for (const send of [complete, stream]) {
                if (send === stream && (body.n ?? 1) > 1)
                    continue;
                const base = send === stream ? (await stream(plain.client(), body)).choices : expected.choices;
                expect(base).toEqual(expected.choices.map(({tokens, ...rest}) => send === stream ? rest : {tokens, ...rest}));
                for (const prediction of [undefined, ...predictions]) {
                    const reply = await send(speculating.client(), {...body, ...(prediction == null ? {} : {prediction: {type: "content", content: prediction}})});
                    expect(reply.choices, `${send.name}, prediction ${JSON.stringify(prediction)}`).toEqual(base);
                    replies.push(reply);
                }
            }
            return {expected, replies};
        };

        it("free text, with lookup and with a right, a half-right and a wrong prediction, streamed and not", async () => {
            for (const prompt of prompts) {
                const {expected} = await expectSame({prompt, max_tokens: maxTokens});
                const text = expected.choices[0]!.text;
                expect(text.length).toBeGreaterThan(0);
                const predictions = [text, `${text.slice(0, text.length >> 1)} and then the keeper sold it`, "A list: one, two, three."];
                const predicted = await expectSame({prompt, max_tokens: maxTokens}, predictions);
                // The right prediction is taken whole; each is counted, accepted and rejected.
                expect(predicted.replies[1]!.details).toMatchObject({rejected_prediction_tokens: 0});
                expect(predicted.replies[1]!.details!.accepted_prediction_tokens).toBeGreaterThan(0);
            }
            const metrics = parsePrometheusText(await (await fetch(`${speculating.url.replace(/\/v1$/, "")}/metrics`)).text());
            expect(metrics.value("chatserve:spec_decode_num_draft_tokens_total", {model: "m", source: "prediction"})).toBeGreaterThan(0);
        });

        it("stop sequences: the reply ends where it ends without drafts", async () => {
            const full = (await complete(plain.client(), {prompt: prompts[0], max_tokens: maxTokens})).choices[0]!.text;
            const stop = full.slice(full.length >> 1, (full.length >> 1) + 2);
            await expectSame({prompt: prompts[0], max_tokens: maxTokens, stop: [stop]}, [full]);
        });

        /** The text a prediction sent beside a request that takes no drafts would hold, and how many tokens it has. */
        const predictionFor = async (prompt: string | undefined) => {
            const prediction = (await complete(plain.client(), {prompt, max_tokens: maxTokens})).choices[0]!.text;
            // A request that drafts from it counts all its tokens, one way or the other.
            const {details} = await complete(speculating.client(), {prompt, max_tokens: maxTokens, prediction: {type: "content", content: prediction}});
            return {prediction, tokens: details!.accepted_prediction_tokens! + details!.rejected_prediction_tokens!};
        };

        /** Requests OpenAI takes no prediction with (n, logprobs, tools): the same reply with lookup on, and a 400 naming the field beside a prediction. */
        const expectRefusingPrediction = async (body: Body, param: string) => {
            await expectSame(body);
            const refusal = await complete(speculating.client(), {...body, prediction: {type: "content", content: "a guess"}}).catch((error: unknown) => error);
            expect(refusal).toMatchObject({status: 400, param});
        };

        it("n: every choice is the one without drafts", async () => {
            await expectRefusingPrediction({prompt: prompts[0], max_tokens: maxTokens, n: 2}, "n");
        });

        it("logprobs: the same tokens", async () => {
            await expectRefusingPrediction({prompt: prompts[0], max_tokens: maxTokens, logprobs: true, top_logprobs: 2}, "logprobs");
        });

        it.runIf(withTools)("tools: the same call", async () => {
            await expectRefusingPrediction({prompt: "What is the weather in Paris for the next 3 days?", max_tokens: 2 * maxTokens, tools, tool_choice: "required", parallel_tool_calls: false}, "tools");
        });

        it("json_schema (a grammar: no drafts): the same object, and a prediction is all rejected tokens", async () => {
            const {prediction, tokens} = await predictionFor(prompts[1]);
            const {replies} = await expectSame({prompt: prompts[1], max_tokens: maxTokens, response_format: {type: "json_schema", json_schema: {name: "thing", schema, strict: true}}}, [prediction]);
            // Each send: without a prediction, then with it.
            for (const reply of replies.filter((_, index) => index % 2 === 1))
                expect(reply.details).toMatchObject({accepted_prediction_tokens: 0, rejected_prediction_tokens: tokens});
        });
    });
}

identityMatrix("a tiny ChatML model with tools (built here)", () => buildTinyChatModel(undefined, {tools: true}), 24);
if (hasSharedModels) {
    identityMatrix("Qwen2.5 (ChatML, its own template)", async () => sharedModels.qwenTools, 24);
    identityMatrix("Llama 3.2 (its own template)", async () => sharedModels.llama32Tools, 24);
    identityMatrix("stories260K (no template: the fallback, without tools)", async () => sharedModels.stories260K, 24, false);
}

describe("a reply that ends inside a drafted run", () => {
    let plain: TestServer;
    let speculating: TestServer;

    beforeAll(async () => {
        const file = await buildTinyChatModel(undefined, {tools: true});
        // One sequence each: the KV-cache gauge is that sequence's tokens.
        plain = await startTestServer({m: file}, {parallel: 1, ctxSize: 512, lookupDecoding: false});
        speculating = await startTestServer({m: file}, {parallel: 1, ctxSize: 512, lookupDecoding: true, ...fixedDraftCost});
    });
    afterAll(async () => {
        await plain?.stop();
        await speculating?.stop();
    });

    const cacheUsage = async (server: TestServer) =>
        parsePrometheusText(await (await fetch(`${server.url.replace(/\/v1$/, "")}/metrics`)).text()).value("chatserve:kv_cache_usage_perc", {model: "m"});

    it("leaves the sequence holding what plain decoding leaves: the run's tokens after the stop are dropped", async () => {
        const full = (await complete(plain.client(), {prompt: prompts[0], max_tokens: 24})).choices[0]!.text;
        const stop = full.slice(full.length >> 1, (full.length >> 1) + 2);
        const expected = await complete(plain.client(), {prompt: prompts[0], max_tokens: 24, stop: [stop]});
        // The prediction is the whole reply: the stop is met inside a draft of all of it.
        const drafted = await complete(speculating.client(), {prompt: prompts[0], max_tokens: 24, stop: [stop], prediction: {type: "content", content: full}});
        expect(drafted.choices).toEqual(expected.choices);
        expect(drafted.details!.accepted_prediction_tokens).toBeGreaterThan(0);
        expect(await cacheUsage(speculating)).toBe(await cacheUsage(plain));
        expect(await cacheUsage(plain)).toBeGreaterThan(0);
    });
});
