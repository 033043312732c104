// A model file whose vocabulary lists a token twice made llama.cpp abort the whole process at load
// (GGML_ASSERT in llama-vocab.cpp); one whose vocabulary has no byte tokens, at the first request
// with a character it cannot spell; one whose heads do not share its KV heads evenly, as its first
// context was made. Served beside a good model, each is now listed as one llama.cpp cannot load, a
// request naming it gets a 400 with the reason, and the server serves on.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import OpenAI from "openai";
import {afterAll, beforeAll, expect, it} from "vitest";
import type {ModelObject} from "../../../src/api/models/models.js";
import {attentionSizesModelFile, duplicateTokenModelFile, noByteTokensModelFile} from "../../fixtures/gguf/brokenModels.js";
import {encodeGguf} from "../../fixtures/gguf/ggufWriter.js";
import {buildTinyChatModel} from "../../fixtures/gguf/tinyModels.js";
import {startTestServer, type TestServer} from "../support/testServer.js";

let dir: string;
let server: TestServer;

beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-unloadable-"));
    const broken = {"duplicate-vocab": duplicateTokenModelFile(), "no-byte-tokens": noByteTokensModelFile(), "uneven-kv-heads": attentionSizesModelFile({kvHeads: 3})};
    const files: Record<string, string> = {};
    for (const [name, file] of Object.entries(broken)) {
        files[name] = path.join(dir, `${name}.gguf`);
        await fs.writeFile(files[name], encodeGguf(file));
    }
    server = await startTestServer({good: await buildTinyChatModel(), ...files}, {ctxSize: 512});
}, 60_000);
afterAll(async () => {
    await server?.stop();
    await fs.rm(dir, {recursive: true, force: true});
});

it("keeps serving the good model, and answers a clear 400 for the one llama.cpp would abort on", async () => {
    const client = server.client();
    const ask = (model: string) => client.chat.completions.create({model, max_tokens: 4, messages: [{role: "user", content: "Hello"}]});
    expect((await ask("good")).choices[0]!.message.role).toBe("assistant");

    const listed = (await client.models.list()).data as unknown as ModelObject[];
    const bad = listed.find((model) => model.id === "duplicate-vocab")!;
    expect(bad.status).toBe("unavailable");
    expect(bad.error).toMatch(/^llama\.cpp cannot load it: its vocabulary lists the token .+ twice \(ids 100 and 101\)/);

    const error = await ask("duplicate-vocab").then(() => null, (caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error).toMatchObject({status: 400, code: "model_unavailable", param: "model"});
    expect((error as Error).message).toContain("lists the token");
    // An explicit load is refused the same way, and the server (this very process) is still here.
    const load = await fetch(`${server.url}/models/duplicate-vocab/load`, {method: "POST"});
    expect(load.status).toBe(400);
    expect((await ask("good")).choices[0]!.message.role).toBe("assistant");
}, 60_000);

it.each([
    ["no-byte-tokens", /^llama\.cpp cannot load it: its SentencePiece vocabulary has no token for 154 bytes/],
    ["uneven-kv-heads", /^llama\.cpp cannot load it: its 4 attention heads do not share its 3 KV heads evenly/]
])("refuses %s, which aborted llama.cpp once loaded, and serves on", async (id, reason) => {
    const client = server.client();
    const listed = (await client.models.list()).data as unknown as ModelObject[];
    expect(listed.find((model) => model.id === id)).toMatchObject({status: "unavailable", error: expect.stringMatching(reason)});
    // "é" is what the vocabulary without byte tokens could not spell.
    const error = await client.chat.completions.create({model: id, max_tokens: 4, messages: [{role: "user", content: "Café?"}]})
        .then(() => null, (caught: unknown) => caught);
    expect(error).toMatchObject({status: 400, code: "model_unavailable"});
    const reply = await client.chat.completions.create({model: "good", max_tokens: 4, messages: [{role: "user", content: "Café?"}]});
    expect(reply.choices[0]!.message.role).toBe("assistant");
}, 60_000);
