// Ollama's POST /api/chat and /api/generate over the engine double: NDJSON by default, one object
// with stream false, tool calls whole with object arguments, thinking, options, num_ctx, errors.
import request from "supertest";
import {describe, expect, it} from "vitest";
import type {GenerationEvent} from "../../../../src/engine/generationEvents.js";
import {CONTEXT_LENGTH} from "../../support/fakeEngine.js";
import {createTestApp, MODEL} from "../../support/testApp.js";

const chat = (extra: Record<string, unknown> = {}) => ({model: MODEL, messages: [{role: "user", content: "Say hello"}], ...extra});
const lines = (text: string) => text.trim().split("\n").map((line) => JSON.parse(line) as Record<string, any>);
const weather = {type: "function", function: {name: "get_weather", description: "Weather", parameters: {type: "object", properties: {city: {type: "string"}}, required: ["city"]}}};
const twoCalls: Array<string | GenerationEvent> = [
    {type: "toolCall", index: 0, name: "get_weather"},
    {type: "toolArguments", index: 0, text: "{\"city\": "},
    {type: "toolArguments", index: 0, text: "\"Paris\"}"},
    {type: "toolCall", index: 1, name: "get_weather"},
    {type: "toolArguments", index: 1, text: "{\"city\": \"Oslo\"}"}
];

describe("POST /api/chat", () => {
    it("streams NDJSON by default: a piece per event, then done with done_reason and measured counts", async () => {
        const t = createTestApp();
        const res = await request(t.app).post("/api/chat").send(chat()).expect(200);
        expect(res.headers["content-type"]).toMatch(/^application\/x-ndjson/);
        const objects = lines(res.text);
        expect(objects.map((object) => object.message.content)).toEqual(["Hello", " there", "!", ""]);
        expect(objects.slice(0, 3).every((object) => object.done === false && object.model === MODEL)).toBe(true);
        const last = objects.at(-1)!;
        expect(last).toMatchObject({done: true, done_reason: "stop", eval_count: 3, message: {role: "assistant", content: ""}});
        expect(last.prompt_eval_count).toBe(2);
        for (const field of ["total_duration", "load_duration", "prompt_eval_duration", "eval_duration"])
            expect(Number.isInteger(last[field]) && last[field] >= 0).toBe(true);
        expect(last.total_duration).toBeGreaterThanOrEqual(last.load_duration);
        expect(Date.parse(last.created_at)).not.toBeNaN();
    });

    it("stream false: one object with the whole message; options reach the sampler", async () => {
        const t = createTestApp();
        const res = await request(t.app).post("/api/chat").send(chat({
            stream: false, options: {temperature: 0.2, top_p: 0.5, top_k: 7, min_p: 0.1, seed: 42, repeat_penalty: 1.3, num_predict: 5, stop: ["END"], num_gpu: 99}
        })).expect(200);
        expect(res.body).toMatchObject({model: MODEL, message: {role: "assistant", content: "Hello there!"}, done: true, done_reason: "stop", eval_count: 3});
        const options = t.model.generations[0]!.options;
        expect(options.sampling).toMatchObject({temperature: 0.2, topP: 0.5, topK: 7, minP: 0.1, seed: 42, repeatPenalty: 1.3});
        expect(options.maxTokens).toBe(5);
        expect(options.stop).toEqual(["END"]);
    });

    it("tools: calls come whole, arguments as objects, one piece each when streamed; results answer them by tool_name", async () => {
        const t = createTestApp();
        t.model.script = {pieces: twoCalls, finish: "toolCalls"};
        const whole = await request(t.app).post("/api/chat").send(chat({stream: false, tools: [weather]})).expect(200);
        expect(whole.body.done_reason).toBe("stop");
        expect(whole.body.message.tool_calls).toEqual([
            {id: expect.stringMatching(/^call_/), function: {index: 0, name: "get_weather", arguments: {city: "Paris"}}},
            {id: expect.stringMatching(/^call_/), function: {index: 1, name: "get_weather", arguments: {city: "Oslo"}}}
        ]);
        const streamed = lines((await request(t.app).post("/api/chat").send(chat({tools: [weather]})).expect(200)).text);
        const callPieces = streamed.filter((object) => object.message.tool_calls != null);
        expect(callPieces.map((object) => object.message.tool_calls.map((call: any) => call.function.arguments))).toEqual([[{city: "Paris"}], [{city: "Oslo"}]]);

        t.model.script = {pieces: ["Sunny in both."]};
        const second = await request(t.app).post("/api/chat").send({
            model: MODEL, stream: false, tools: [weather], messages: [
                {role: "user", content: "Weather in Paris and Oslo?"},
                {role: "assistant", content: "", tool_calls: [{function: {name: "get_weather", arguments: {city: "Paris"}}}, {function: {name: "get_weather", arguments: {city: "Oslo"}}}]},
                {role: "tool", tool_name: "get_weather", content: "18 C"},
                {role: "tool", tool_name: "get_weather", content: "9 C"}
            ]
        }).expect(200);
        // Each result answered a call (the core refuses one that answers none); the pairing itself: test/unit/api/ollama/toConversation.test.ts.
        expect(second.body.message.content).toBe("Sunny in both.");
    });

    it("a tool result with no call before it is a 400 naming the message", async () => {
        const t = createTestApp();
        const res = await request(t.app).post("/api/chat").send({model: MODEL, stream: false, messages: [{role: "tool", tool_name: "x", content: "1"}]}).expect(400);
        expect(res.body).toEqual({error: expect.stringContaining("messages[0]")});
    });

    it("think: a reasoning model's thought goes to message.thinking; think false turns it off", async () => {
        const t = createTestApp();
        t.model.script = {pieces: [{type: "reasoning", text: "Hmm."}, "Hi"]};
        const res = await request(t.app).post("/api/chat").send(chat({stream: false, think: true})).expect(200);
        expect(res.body.message).toEqual({role: "assistant", content: "Hi", thinking: "Hmm."});
        const streamed = lines((await request(t.app).post("/api/chat").send(chat({think: "high"})).expect(200)).text);
        expect(streamed[0]!.message).toEqual({role: "assistant", content: "", thinking: "Hmm."});
        await request(t.app).post("/api/chat").send(chat({stream: false, think: false})).expect(200);
        expect(t.model.renderedThinking).toBe(false);
    });

    it("format json or a schema constrains the reply", async () => {
        const t = createTestApp();
        t.model.script = {pieces: ["{}"]};
        await request(t.app).post("/api/chat").send(chat({stream: false, format: "json"})).expect(200);
        expect(t.model.generations.at(-1)!.options.format).toEqual({type: "json", schema: null});
        const schema = {type: "object", properties: {a: {type: "number"}}, required: ["a"]};
        await request(t.app).post("/api/chat").send(chat({stream: false, format: schema})).expect(200);
        expect(t.model.generations.at(-1)!.options.format).toMatchObject({type: "json", schema: {type: "object"}});
    });

    it("num_ctx within the served context is honoured; beyond it a 400 says the size, never a silent cut", async () => {
        const t = createTestApp();
        await request(t.app).post("/api/chat").send(chat({stream: false, options: {num_ctx: CONTEXT_LENGTH}})).expect(200);
        const res = await request(t.app).post("/api/chat").send(chat({options: {num_ctx: 131072}})).expect(400);
        expect(res.body.error).toContain(`${CONTEXT_LENGTH} tokens`);
        expect(res.body.error).toContain("num_ctx");
    });

    it("images on a model without vision are a 400 naming messages[0].images[0]", async () => {
        const t = createTestApp();
        const res = await request(t.app).post("/api/chat").send({model: MODEL, messages: [{role: "user", content: "What is it?", images: ["iVBORw0KGgo="]}]}).expect(400);
        expect(res.body.error).toContain("messages[0].images[0]");
    });

    it("bad fields are 400s in Ollama's envelope; an empty message list loads the model", async () => {
        const t = createTestApp();
        expect((await request(t.app).post("/api/chat").send(chat({think: "maybe"})).expect(400)).body).toEqual({error: expect.stringContaining("think")});
        expect((await request(t.app).post("/api/chat").send(chat({options: {temperature: "hot"}})).expect(400)).body).toEqual({error: expect.stringContaining("options.temperature")});
        expect((await request(t.app).post("/api/chat").send({messages: []}).expect(400)).body).toEqual({error: expect.stringContaining("model")});
        const load = lines((await request(t.app).post("/api/chat").send({model: MODEL, messages: []}).expect(200)).text);
        expect(load).toEqual([{model: MODEL, created_at: expect.any(String), message: {role: "assistant", content: ""}, done_reason: "load", done: true}]);
    });

    it("a failure mid-stream is one more line holding {error}", async () => {
        const t = createTestApp();
        t.model.script = {pieces: ["Hel"], failWith: new Error("boom")};
        const objects = lines((await request(t.app).post("/api/chat").send(chat()).expect(200)).text);
        expect(objects.at(-1)).toEqual({error: expect.any(String)});
    });
});

describe("POST /api/generate", () => {
    it("templated: system and prompt as a conversation; response pieces, then done", async () => {
        const t = createTestApp();
        const objects = lines((await request(t.app).post("/api/generate").send({model: MODEL, system: "Be terse.", prompt: "Say hello"}).expect(200)).text);
        expect(objects.map((object) => object.response)).toEqual(["Hello", " there", "!", ""]);
        // "Be terse." and "Say hello": four words, one token each in the double.
        expect(objects.at(-1)).toMatchObject({done: true, done_reason: "stop", eval_count: 3, prompt_eval_count: 4});
    });

    it("raw: the prompt as it is, no template; num_predict limits it", async () => {
        const t = createTestApp();
        const res = await request(t.app).post("/api/generate").send({model: MODEL, prompt: "one two three", raw: true, stream: false, options: {num_predict: 2}}).expect(200);
        expect(res.body).toMatchObject({response: "Hello there", done: true, done_reason: "length", prompt_eval_count: 3, eval_count: 2});
        expect(t.model.generations.at(-1)!.options.maxTokens).toBe(2);
        // No chat prompt was rendered.
        expect(t.model.promptPartitions).toHaveLength(0);
    });

    it("suffix: fill-in-the-middle on a model with FIM tokens, a 400 on one without", async () => {
        const t = createTestApp();
        const refused = await request(t.app).post("/api/generate").send({model: MODEL, prompt: "def f(", suffix: "\n    return x", stream: false}).expect(400);
        expect(refused.body.error).toContain("fill-in-the-middle");
        t.model.supportsInfill = true;
        const res = await request(t.app).post("/api/generate").send({model: MODEL, prompt: "def f(", suffix: "\n    return x", stream: false, options: {num_predict: 8}}).expect(200);
        // The double's FIM prompt is the prefix's and the suffix's words: def, f(, return, x.
        expect(res.body).toMatchObject({response: "Hello there!", prompt_eval_count: 4});
    });
});

describe("POST /api/embed and /api/embeddings", () => {
    it("one vector per input, a string or a list; the older endpoint answers {embedding}", async () => {
        const t = createTestApp();
        const one = await request(t.app).post("/api/embed").send({model: "embedder:latest", input: "hello"}).expect(200);
        expect(one.body).toMatchObject({model: "embedder:latest", embeddings: [expect.any(Array)], prompt_eval_count: expect.any(Number)});
        const two = await request(t.app).post("/api/embed").send({model: "embedder", input: ["a", "b"]}).expect(200);
        expect(two.body.embeddings).toHaveLength(2);
        const old = await request(t.app).post("/api/embeddings").send({model: "embedder", prompt: "hello"}).expect(200);
        expect(old.body).toEqual({embedding: one.body.embeddings[0]});
        expect((await request(t.app).post("/api/embed").send({model: "embedder", input: 3}).expect(400)).body).toEqual({error: expect.stringContaining("input")});
        expect((await request(t.app).post("/api/embed").send({model: "embedder", input: []}).expect(400)).body).toEqual({error: expect.stringContaining("empty")});
        // A chat model does not embed: a 400, not a 500.
        expect((await request(t.app).post("/api/embed").send({model: MODEL, input: "x"}).expect(400)).body).toEqual({error: expect.any(String)});
    });
});
