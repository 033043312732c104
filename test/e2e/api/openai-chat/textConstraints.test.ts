// Raw constraints end to end: the official client, a real server, random-weight models (so every
// reply that matches is the grammar's work), sampled at temperature 1 with several seeds. Every
// bounded constraint is complete within max_tokens, so each reply must match, every time.
import {readFileSync} from "node:fs";
import OpenAI from "openai";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {buildTinyChatModel} from "../../../fixtures/gguf/tinyModels.js";
import {hasSharedModels, sharedModels} from "../../support/sharedModels.js";
import {startTestServer, type TestServer} from "../../support/testServer.js";

const seeds = [1, 2, 3, 4, 5];
const messages = [{role: "user" as const, content: "Answer."}];
/** Longer than any bounded constraint below, even at one byte per token. */
const maxTokens = 48;

/** vLLM's and llama-server's fields are extensions: the client passes them through as body fields. */
type Extra = Record<string, unknown>;

function textConstraints(label: string, modelFile: () => Promise<string>): void {
    describe(label, () => {
        let server: TestServer;
        let client: OpenAI;
        const chat = async (extra: Extra, seed: number): Promise<{text: string, finish: string}> => {
            const reply = await client.chat.completions.create({model: "m", messages, temperature: 1, seed, max_tokens: maxTokens, ...extra} as never) as OpenAI.ChatCompletion;
            return {text: reply.choices[0]!.message.content ?? "", finish: reply.choices[0]!.finish_reason};
        };

        beforeAll(async () => {
            server = await startTestServer({m: await modelFile()}, {ctxSize: 1024});
            client = server.client();
        });
        afterAll(async () => server?.stop());

        it("a regex (structured_outputs and guided_regex) is matched whole by every reply", async () => {
            for (const seed of seeds)
                for (const extra of [{structured_outputs: {regex: "\\d{3}-[A-Z]{2}(x|yz)?"}}, {guided_regex: "^\\d{3}-[A-Z]{2}(x|yz)?$"}]) {
                    const {text, finish} = await chat(extra, seed);
                    expect(text).toMatch(/^\d{3}-[A-Z]{2}(x|yz)?$/);
                    expect(finish).toBe("stop");
                }
        });

        it("a choice is one of the texts, every time, prefixes of each other included", async () => {
            const choices = ["red", "green", "gre", "blue sky", "ünïcode \"quoted\"\n"];
            const seen = new Set<string>();
            for (const seed of seeds)
                for (const extra of [{structured_outputs: {choice: choices}}, {guided_choice: choices}]) {
                    const {text} = await chat(extra, seed);
                    expect(choices).toContain(text);
                    seen.add(text);
                }
            // Sampled, not fixed: five seeds at temperature 1 do not all land on one text of five.
            expect(seen.size).toBeGreaterThan(1);
        });

        it("a GBNF grammar (grammar, structured_outputs.grammar), streamed and not, on chat and legacy completions", async () => {
            const grammar = "root ::= answer \" \" word\nanswer ::= \"yes\" | \"no\"\nword ::= [a-z]{1,6}\n";
            const matches = /^(yes|no) [a-z]{1,6}$/;
            for (const seed of seeds) {
                expect((await chat({grammar}, seed)).text).toMatch(matches);
                let streamed = "";
                const stream = await client.chat.completions.create({
                    model: "m", messages, temperature: 1, seed, max_tokens: maxTokens, stream: true, structured_outputs: {grammar}
                } as never) as unknown as AsyncIterable<OpenAI.ChatCompletionChunk>;
                for await (const chunk of stream)
                    streamed += chunk.choices[0]?.delta.content ?? "";
                expect(streamed).toMatch(matches);
                const completion = await client.completions.create({model: "m", prompt: "Q:", temperature: 1, seed, max_tokens: maxTokens, grammar} as never) as OpenAI.Completion;
                expect(completion.choices[0]!.text).toMatch(matches);
            }
        });

        it("on the Responses API too (llama-server's /v1/responses passes grammar through): a grammar and a choice, streamed and not", async () => {
            const grammar = "root ::= answer \" \" word\nanswer ::= \"yes\" | \"no\"\nword ::= [a-z]{1,6}\n";
            for (const seed of seeds) {
                const reply = await client.responses.create({model: "m", input: "Answer.", temperature: 1, seed, max_output_tokens: maxTokens, grammar} as never) as OpenAI.Responses.Response;
                expect(reply.output_text).toMatch(/^(yes|no) [a-z]{1,6}$/);
                let streamed = "";
                const stream = await client.responses.create({
                    model: "m", input: "Answer.", temperature: 1, seed, max_output_tokens: maxTokens, stream: true, structured_outputs: {choice: ["red", "green"]}
                } as never) as unknown as AsyncIterable<OpenAI.Responses.ResponseStreamEvent>;
                for await (const event of stream)
                    if (event.type === "response.output_text.delta")
                        streamed += event.delta;
                expect(["red", "green"]).toContain(streamed);
            }
            const both = client.responses.create({model: "m", input: "Answer.", max_output_tokens: 4, grammar, text: {format: {type: "json_object"}}} as never);
            await expect(both).rejects.toMatchObject({status: 400, param: "grammar"});
        });

        it("a grammar llama.cpp cannot parse is a 400 naming the line, in llama.cpp's words; the server goes on serving", async () => {
            const bad = chat({grammar: "root ::= answer\nanswer ::= \"yes\" | \"n\\qo\"\n"}, 1);
            await expect(bad).rejects.toBeInstanceOf(OpenAI.BadRequestError);
            await expect(bad).rejects.toMatchObject({status: 400, param: "grammar", code: "invalid_grammar"});
            await expect(bad).rejects.toThrow(/line 2, column 22: unknown escape/);
            const undefinedRule = client.completions.create({model: "m", prompt: "Q:", max_tokens: 4, guided_grammar: "root ::= missing"} as never);
            await expect(undefinedRule).rejects.toThrow(/Undefined rule identifier 'missing'/);
            expect((await chat({guided_choice: ["ok"]}, 1)).text).toBe("ok");
        });
    });
}

textConstraints("a tiny model the tests build", () => buildTinyChatModel());

describe.runIf(hasSharedModels)("shared models", () => {
    textConstraints("tiny-random-qwen2.5-chatml-tools (../shared/models)", async () => sharedModels.qwenTools);
});

/** The curl examples of a markdown file's text from `heading` on (up to `count` of them): each request's path and body. */
function documentedRequests(file: string, heading: string, count: number): Array<{path: string, body: Record<string, unknown>}> {
    const doc = readFileSync(new URL(`../../../../${file}`, import.meta.url), "utf8");
    const section = doc.slice(doc.indexOf(heading));
    return [...section.matchAll(/curl http:\/\/127\.0\.0\.1:8080(\S+) -H 'Content-Type: application\/json' -d '([^']*)'/g)].slice(0, count)
        .map((match) => ({path: match[1]!, body: JSON.parse(match[2]!) as Record<string, unknown>}));
}

describe("the documented curl examples", () => {
    let server: TestServer;
    beforeAll(async () => { server = await startTestServer({m: await buildTinyChatModel()}, {ctxSize: 1024}); });
    afterAll(async () => server?.stop());

    it("answer 200 with replies that match their constraints (sent as curl sends them, to the tiny model)", async () => {
        const requests = [
            ...documentedRequests("docs/api/structured-output.md", "## Grammars, regular expressions and choices", 4),
            ...documentedRequests("README.md", "A reply can also be held to a GBNF grammar", 1)
        ];
        expect(requests.map(({path}) => path)).toEqual(["/v1/chat/completions", "/v1/chat/completions", "/v1/completions", "/v1/responses", "/v1/chat/completions"]);
        const matches = [/^(yes|no) [a-z]{1,12}$/, /^\d{3}-[A-Z]{2}$/, /^ (positive|negative|neutral)$/, /^(yes|no)$/, /^(yes|no)$/];
        for (const [index, {path, body}] of requests.entries())
            for (const seed of seeds) {
                const response = await fetch(`${server.url.replace(/\/v1$/, "")}${path}`, {
                    method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify({max_tokens: maxTokens, ...body, model: "m", seed})
                });
                expect(response.status).toBe(200);
                const json = await response.json() as {choices?: Array<{text?: string, message?: {content: string}}>, output?: Array<{content: Array<{text: string}>}>};
                // A chat completion's message, a completion's text, or a response's output message.
                const text = json.choices?.[0]!.message?.content ?? json.choices?.[0]!.text ?? json.output![0]!.content[0]!.text;
                expect(text).toMatch(matches[index]!);
            }
    });
});
