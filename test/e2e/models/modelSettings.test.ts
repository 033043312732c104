import fs from "node:fs/promises";
import path from "node:path";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import type {ModelObject} from "../../../src/api/models/models.js";
import {buildTinyChatModel} from "../../fixtures/gguf/tinyModels.js";
import {startTestServer, type TestServer} from "../support/testServer.js";

// chatserve.json end to end, with a tiny model: written while the server runs, changed, then broken.

describe("chatserve.json on a running server", () => {
    let server: TestServer;
    const settingsPath = () => path.join(server.modelsDir, "chatserve.json");

    beforeAll(async () => {
        server = await startTestServer({tiny: await buildTinyChatModel(undefined, {seed: 3})}, {rescanIntervalMs: 100});
    });
    afterAll(async () => {
        await server?.stop();
    });

    async function entry(): Promise<ModelObject> {
        return await server.client().models.retrieve("tiny") as unknown as ModelObject;
    }

    async function until(check: () => Promise<boolean> | boolean): Promise<void> {
        for (let tries = 0; tries < 200 && !await check(); tries++)
            await new Promise((resolve) => setTimeout(resolve, 50));
        expect(await check()).toBe(true);
    }

    async function reply(): Promise<string> {
        const completion = await server.client().chat.completions.create({model: "tiny", messages: [{role: "user", content: "Tell me a story"}], max_tokens: 24});
        return completion.choices[0]!.message.content ?? "";
    }

    it("applies a file written after start: its context before and after the load, and its default temperature", async () => {
        expect((await entry()).context_length).toBe(1024);
        await fs.writeFile(settingsPath(), JSON.stringify({models: {tiny: {ctx_size: 512, temperature: 0}, "*": {keep_alive: "10m"}}}));
        await until(async () => (await entry()).context_length === 512);
        expect((await entry()).keep_alive).toBe(600);

        // Temperature 0 from the file: greedy, so two requests without a temperature (each with its own random seed) agree.
        const first = await reply();
        expect(first.length).toBeGreaterThan(0);
        expect(await reply()).toBe(first);
        expect(await entry()).toMatchObject({loaded: true, context_length: 512});
    });

    it("reloads the model with a changed context without a restart", async () => {
        await fs.writeFile(settingsPath(), JSON.stringify({models: {tiny: {ctx_size: 768, temperature: 0}}}));
        await until(async () => (await entry()).context_length === 768);
        await reply();
        expect(await entry()).toMatchObject({loaded: true, context_length: 768});
    });

    it("loads the model with a chat template from the folder", async () => {
        await fs.writeFile(path.join(server.modelsDir, "plain.jinja"), "{% for message in messages %}{{ message.content }}\n{% endfor %}");
        await fs.writeFile(settingsPath(), JSON.stringify({models: {tiny: {ctx_size: 768, temperature: 0, chat_template: "plain.jinja"}}}));
        await until(async () => !(await entry()).loaded);
        await reply();
        expect(await entry()).toMatchObject({loaded: true, context_length: 768});
    });

    it("keeps the settings in force when the file becomes invalid, and says why", async () => {
        await fs.writeFile(settingsPath(), `{"models": {"tiny": {"ctx_size": "large"}}}`);
        // A rescan may read the file half written ("not valid JSON"); the next one reads it whole.
        await until(() => server.settingsFile.error?.includes("models.tiny.ctx_size") === true);
        expect(server.settingsFile.error).toMatch(/chatserve\.json is not valid, so the settings in force stay: models\.tiny\.ctx_size/);
        expect(await entry()).toMatchObject({loaded: true, context_length: 768});
        const before = await reply();
        expect(await reply()).toBe(before);
    });
});
