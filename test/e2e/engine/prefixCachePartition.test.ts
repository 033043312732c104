import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {buildTinyChatModel} from "../../fixtures/gguf/tinyModels.js";
import {startTestServer, type TestServer} from "../support/testServer.js";

const keyA = "sk-key-a";
const keyB = "sk-key-b";
/** A pair of keys for each API's round: a key new to the server has no cache of its own (not even a template's first tokens). */
const roundKeys = (round: number) => ({a: `sk-a-${round}`, b: `sk-b-${round}`});

/** One API's request whose prompt is `prefix` and then `question`, and where its reply says how much of the prompt was cached. */
type Api = {name: string, path: string, body: (prefix: string, question: string) => object, cached: (reply: Record<string, any>) => number};

const apis: Api[] = [
    {
        name: "chat completions", path: "/chat/completions",
        body: (prefix, question) => ({model: "tiny-chat", max_tokens: 2, temperature: 0, messages: [{role: "system", content: prefix}, {role: "user", content: question}]}),
        cached: (reply) => reply.usage.prompt_tokens_details.cached_tokens
    },
    {
        name: "Responses", path: "/responses",
        body: (prefix, question) => ({model: "tiny-chat", max_output_tokens: 16, temperature: 0, instructions: prefix, input: question, store: false}),
        cached: (reply) => reply.usage.input_tokens_details.cached_tokens
    },
    {
        name: "Anthropic Messages", path: "/messages",
        body: (prefix, question) => ({model: "tiny-chat", max_tokens: 2, temperature: 0, system: prefix, messages: [{role: "user", content: question}]}),
        cached: (reply) => reply.usage.cache_read_input_tokens
    },
    {
        name: "completions", path: "/completions",
        body: (prefix, question) => ({model: "tiny-chat", max_tokens: 2, temperature: 0, prompt: `${prefix}\n${question}`}),
        cached: (reply) => reply.usage.prompt_tokens_details.cached_tokens
    },
    {
        name: "fill-in-the-middle", path: "/completions",
        body: (prefix, question) => ({model: "tiny-fim", max_tokens: 2, temperature: 0, prompt: `${prefix}\n${question}`, suffix: "\nThe end."}),
        cached: (reply) => reply.usage.prompt_tokens_details.cached_tokens
    }
];

/** A long shared beginning, different for each API's round. */
const prefixFor = (round: number) => `Round ${round}: the lighthouse keeper counted ships at dawn and wrote their names down. `.repeat(6);

async function send(server: TestServer, key: string, api: Api, prefix: string, question: string): Promise<number> {
    const response = await fetch(`${server.url}${api.path}`, {
        method: "POST",
        headers: {"Content-Type": "application/json", Authorization: `Bearer ${key}`},
        body: JSON.stringify(api.body(prefix, question))
    });
    const reply = await response.json() as Record<string, any>;
    expect(response.status, JSON.stringify(reply)).toBe(200);
    return api.cached(reply);
}

/**
 * Two keys on one server: key B sends a prompt sharing a long beginning with key A's, which A's
 * sequence holds. Before, B's usage counted A's tokens as cached (23, 25, 27 … as B's guess grew),
 * telling B A's prompt one token at a time.
 */
describe("the prefix cache with several API keys", () => {
    let fim: string;
    let chat: string;
    beforeAll(async () => {
        chat = await buildTinyChatModel();
        fim = await buildTinyChatModel(undefined, {fim: true});
    });

    describe("kept apart per key (the default)", () => {
        let server: TestServer;
        beforeAll(async () => {
            const apiKeys = apis.flatMap((_api, round) => Object.values(roundKeys(round)));
            server = await startTestServer({"tiny-chat": chat, "tiny-fim": fim}, {apiKeys, parallel: 2});
        });
        afterAll(async () => server?.stop());

        it.each(apis.map((api, round) => [api.name, api, round] as const))("%s: another key's shared prefix is never cached for B; A's and B's own are", async (_name, api, round) => {
            const prefix = prefixFor(round);
            const {a, b} = roundKeys(round);
            await send(server, a, api, prefix, "How many ships came?");
            expect(await send(server, b, api, prefix, "Which ship came first?")).toBe(0);
            // Each key still reuses its own.
            expect(await send(server, a, api, prefix, "Which ship came last?")).toBeGreaterThan(40);
            expect(await send(server, b, api, prefix, "Which ship was largest?")).toBeGreaterThan(40);
        });
    });

    describe("shared with --share-prefix-cache", () => {
        let server: TestServer;
        beforeAll(async () => {
            server = await startTestServer({"tiny-chat": chat}, {apiKeys: [keyA, keyB], parallel: 2, sharePrefixCache: true});
        });
        afterAll(async () => server?.stop());

        it("lets key B reuse the prefix key A's prompt left", async () => {
            const prefix = prefixFor(0);
            await send(server, keyA, apis[0]!, prefix, "How many ships came?");
            expect(await send(server, keyB, apis[0]!, prefix, "Which ship came first?")).toBeGreaterThan(40);
        });
    });

    describe("with one sequence, which both keys take in turn", () => {
        let server: TestServer;
        beforeAll(async () => {
            server = await startTestServer({"tiny-chat": chat}, {apiKeys: [keyA, keyB], parallel: 1});
        });
        afterAll(async () => server?.stop());

        it("gives key B the sequence blank, and key A's next prompt finds its own again only in the prompt cache, key A's", async () => {
            const prefix = prefixFor(0);
            await send(server, keyA, apis[0]!, prefix, "How many ships came?");
            expect(await send(server, keyA, apis[0]!, prefix, "Which ship came last?")).toBeGreaterThan(40);
            expect(await send(server, keyB, apis[0]!, prefix, "Which ship came first?")).toBe(0);
            // Saved as key A's before key B's request took the sequence (engine/promptCache/), restored for key A alone.
            expect(await send(server, keyA, apis[0]!, prefix, "Which ship was largest?")).toBeGreaterThan(40);
        });
    });
});
