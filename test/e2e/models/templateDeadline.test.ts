// Chat templates that never end, given in chatserve.json: one always (node-llama-cpp's test render
// at load meets the time bound, so the model is unavailable, saying why), one on long conversations
// only (those requests get a clear 400 within the bound); the server goes on serving the other model.
import fs from "node:fs/promises";
import path from "node:path";
import OpenAI from "openai";
import {afterAll, beforeAll, expect, it} from "vitest";
import {buildTinyChatModel} from "../../fixtures/gguf/tinyModels.js";
import {startTestServer, type TestServer} from "../support/testServer.js";

let server: TestServer;

beforeAll(async () => {
    const model = await buildTinyChatModel();
    server = await startTestServer({looping: model, spinning: model, fine: model}, {rescanIntervalMs: 100});
    const loop = "{% for i in range(90000) %}{% for j in range(90000) %}{{ '' }}{% endfor %}{% endfor %}";
    await fs.writeFile(path.join(server.modelsDir, "loop.jinja"), `${loop}{{ messages[0].content }}`);
    await fs.writeFile(path.join(server.modelsDir, "spin.jinja"),
        `{% if messages|length > 8 %}${loop}{% endif %}{% for message in messages %}{{ message.role }}: {{ message.content }}\n{% endfor %}`);
    await fs.writeFile(path.join(server.modelsDir, "chatserve.json"),
        JSON.stringify({models: {looping: {chat_template: "loop.jinja"}, spinning: {chat_template: "spin.jinja"}}}));
    while (server.settingsFile.current.templates.size < 2)
        await new Promise((resolve) => setTimeout(resolve, 50));
});
afterAll(async () => server?.stop());

const ask = (model: string, turns = 1) => server.client().chat.completions.create({
    model, max_tokens: 2,
    messages: Array.from({length: turns * 2 - 1}, (_, index) => ({role: index % 2 === 0 ? "user" as const : "assistant" as const, content: `turn ${index}`}))
});

it("a template that never ends makes its model unavailable, saying why; the others serve on", async () => {
    const error = await ask("looping").then(() => null, (caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error).toMatchObject({code: "model_unavailable", message: expect.stringContaining("did not finish within 1000 ms")});
    expect((await ask("fine")).choices[0]!.message.role).toBe("assistant");
});

it("a template that never ends on some input answers those requests 400 chat_template_timeout, and serves the rest", async () => {
    expect((await ask("spinning")).choices[0]!.message.role).toBe("assistant");
    for (let round = 0; round < 2; round++) {
        const error = await ask("spinning", 5).then(() => null, (caught: unknown) => caught);
        expect(error).toBeInstanceOf(OpenAI.BadRequestError);
        expect(error).toMatchObject({code: "chat_template_timeout", param: "messages", message: expect.stringContaining("did not finish within")});
        expect((await ask("fine")).choices[0]!.message.role).toBe("assistant");
        expect((await ask("spinning")).choices[0]!.message.role).toBe("assistant");
    }
});
