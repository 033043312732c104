// The model's own chat template, end to end: a template the Jinja engine cannot parse is a clear
// error naming it (never a silent other format), while the server serves a good model beside it.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {tinyChatModelFile, writeCached} from "../../fixtures/gguf/tinyModels.js";
import {startTestServer, type TestServer} from "../support/testServer.js";

let server: TestServer;
let dir: string;

beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-templates-"));
    const broken = await writeCached(dir, "broken-template", tinyChatModelFile({template: {name: "broken", source: "{% for message in %}{{ message }}"}}));
    const good = await writeCached(dir, "good-template", tinyChatModelFile());
    server = await startTestServer({broken, good});
});

afterAll(async () => {
    await server?.stop();
    await fs.rm(dir, {recursive: true, force: true});
});

describe("a model's own chat template", () => {
    it("that cannot be parsed: the request hears why, and how to give it one that can; the server serves on", async () => {
        const client = server.client();
        const failure = await client.chat.completions.create({model: "broken", messages: [{role: "user", content: "Hi"}], max_tokens: 2}).catch((error: unknown) => error);
        expect(failure).toMatchObject({status: 400, code: "model_unavailable", message: expect.stringMatching(/chat template cannot be parsed .*chat_template in chatserve\.json/)});
        const reply = await client.chat.completions.create({model: "good", messages: [{role: "user", content: "Hi"}], max_tokens: 2});
        expect(reply.choices[0]!.message.role).toBe("assistant");
    });
});
