import {readFileSync} from "node:fs";
import {fileURLToPath} from "node:url";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {buildLoraAdapter} from "../../fixtures/gguf/loraAdapter.js";
import {buildTinyChatModel} from "../../fixtures/gguf/tinyModels.js";
import {startTestServer, type TestServer} from "../support/testServer.js";

/**
 * The LoRA page's and the README's LoRA section's examples run against a real server: the
 * chatserve.json they show (the tiny chat model standing for the model they name, the tiny adapter
 * for its adapter file), then every curl example, each answered as the page says.
 */
const root = fileURLToPath(new URL("../../../", import.meta.url));
const page = readFileSync(`${root}docs/api/lora.md`, "utf8");
const readme = readFileSync(`${root}README.md`, "utf8");
const readmeSection = readme.slice(readme.indexOf("### LoRA adapters"), readme.indexOf("## Flags"));

type Example = {source: string, path: string, body?: Record<string, unknown>};

/** `curl http://127.0.0.1:8080/<path>[?query] … [-d '<json>']` in the text's sh blocks. */
function examples(text: string, source: string): Example[] {
    const found: Example[] = [];
    for (const block of text.matchAll(/```sh\n([\s\S]*?)```/g))
        for (const call of block[1]!.matchAll(/curl '?http:\/\/127\.0\.0\.1:8080(\/[\w/.?=-]*)'?(?:[^\n]*?-d '([\s\S]*?)')?\n/g))
            found.push({source, path: call[1]!, ...(call[2] == null ? {} : {body: JSON.parse(call[2])})});
    return found;
}

/** The first json block: the chatserve.json both show. */
function settingsOf(text: string): {models: Record<string, {lora: Array<{path: string, scale: number}>}>} {
    return JSON.parse(/```json\n([\s\S]*?)```/.exec(text)![1]!);
}

describe("the LoRA page's and the README's examples", () => {
    let server: TestServer;
    const settings = settingsOf(page);
    const [modelId] = Object.keys(settings.models);

    beforeAll(async () => {
        expect(settingsOf(readmeSection)).toEqual(settings);
        server = await startTestServer({[modelId!]: await buildTinyChatModel()}, {ctxSize: 512, parallel: 1}, {
            [settings.models[modelId!]!.lora[0]!.path]: await buildLoraAdapter(),
            "chatserve.json": JSON.stringify(settings)
        });
    });
    afterAll(async () => server?.stop());

    it("finds them: the listing, a chat completion and a completion on the page, a chat completion in the README", () => {
        expect(examples(page, "page").map(({path, body}) => `${body == null ? "GET" : "POST"} ${path}`))
            .toEqual([`GET /lora-adapters?model=${modelId}`, "POST /v1/chat/completions", "POST /v1/completions"]);
        expect(examples(readmeSection, "README").map(({path}) => path)).toEqual(["/v1/chat/completions"]);
    });

    it("answers each as the page says: the adapter listed with the scale chatserve.json gives it, each request's scales applied", async () => {
        const base = `${server.url.replace(/\/v1$/, "")}`;
        for (const {source, path, body} of [...examples(page, "page"), ...examples(readmeSection, "README")]) {
            const res = await fetch(`${base}${path}`, body == null ? {} : {
                method: "POST", headers: {"Content-Type": "application/json"},
                // Greedy and short, so that the replies compared below are the same each time.
                body: JSON.stringify({...body, temperature: 0, max_tokens: 8})
            });
            expect(res.status, `${source} ${path}`).toBe(200);
            const answer = await res.json() as any;
            if (body == null) {
                expect(answer).toEqual([{id: 0, path: expect.stringMatching(/pirate-lora\.gguf$/), scale: 1}]);
                continue;
            }
            // The documented scales give another reply than the model's own.
            const own = await fetch(`${base}${path}`, {
                method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify({...body, lora: undefined, temperature: 0, max_tokens: 8})
            }).then((reply) => reply.json()) as any;
            const text = (reply: any) => reply.choices[0].message?.content ?? reply.choices[0].text;
            expect(text(answer), `${source} ${path}`).not.toBe(text(own));
        }
    });
});
