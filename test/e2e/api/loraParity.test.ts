import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {buildLoraAdapter} from "../../fixtures/gguf/loraAdapter.js";
import {buildTinyChatModel} from "../../fixtures/gguf/tinyModels.js";
import {hasLlamaServer, startLlamaServer, type LlamaServer} from "../support/llamaServer.js";
import {startTestServer, type TestServer} from "../support/testServer.js";

/**
 * A request's LoRA scales give llama-server's replies: the tiny chat model served with the tiny
 * adapter by both (llama-server's --lora, chatserve.json's lora), the same greedy completions for
 * each request's `lora` and without one, and the same adapter list from GET /lora-adapters.
 * Skipped where llama-server (built from node-llama-cpp's llama.cpp: docs/performance.md) is absent, as in CI.
 */
describe.runIf(hasLlamaServer)("per-request LoRA scales, as llama-server applies them", () => {
    let chatserve: TestServer;
    let llamaServer: LlamaServer;
    /** Each case's completion, by its lora. */
    const replies = new Map<string, string>();
    const ours = async (path: string, body?: unknown) => {
        const res = await fetch(`${chatserve.url.replace(/\/v1$/, "")}${path}`, body == null ? {} : {
            method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)
        });
        return {status: res.status, body: await res.json() as any};
    };

    beforeAll(async () => {
        const model = await buildTinyChatModel();
        const adapter = await buildLoraAdapter();
        chatserve = await startTestServer({tuned: model}, {ctxSize: 512, parallel: 1}, {
            "adapter.gguf": await buildLoraAdapter(),
            "chatserve.json": JSON.stringify({models: {tuned: {lora: [{path: "adapter.gguf"}]}}})
        });
        llamaServer = await startLlamaServer(model, ["-c", "512", "-np", "1", "--lora", adapter]);
    }, 120_000);
    afterAll(async () => {
        await llamaServer?.stop();
        await chatserve?.stop();
    });

    it("lists the same adapter with the same id and scale", async () => {
        const theirs = (await fetch(`${llamaServer.url}/lora-adapters`).then((res) => res.json())) as Array<{id: number, scale: number}>;
        const listed = await ours("/lora-adapters?model=tuned");
        expect(listed.body.map(({id, scale}: {id: number, scale: number}) => ({id, scale}))).toEqual(theirs.map(({id, scale}) => ({id, scale})));
    });

    it.each([
        ["no lora: the adapter at its default scale", undefined],
        ["an empty list: the defaults", []],
        ["scale 0", [{id: 0, scale: 0}]],
        ["scale 0.5", [{id: 0, scale: 0.5}]],
        ["scale 1", [{id: 0, scale: 1}]],
        ["scale -1", [{id: 0, scale: -1}]]
    ])("gives llama-server's greedy completion with %s", async (_name, lora) => {
        const body = {prompt: "Once upon a time", temperature: 0, max_tokens: 12, ...(lora == null ? {} : {lora})};
        const theirs = await llamaServer.post("/v1/completions", body);
        const mine = await ours("/v1/completions", {model: "tuned", ...body});
        expect([mine.status, theirs.status]).toEqual([200, 200]);
        expect(mine.body.choices[0].text).toBe(theirs.body.choices[0].text);
        replies.set(JSON.stringify(lora ?? "default"), mine.body.choices[0].text);
    });

    it("and those completions differ with the scale, so the comparison says something", () => {
        expect(new Set([...replies.values()]).size).toBe(4);
        expect(replies.get(JSON.stringify([]))).toBe(replies.get(JSON.stringify("default")));
        expect(replies.get(JSON.stringify([{id: 0, scale: 1}]))).toBe(replies.get(JSON.stringify("default")));
    });
});
