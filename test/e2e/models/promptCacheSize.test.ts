import {afterAll, beforeAll, describe, expect, it} from "vitest";
import type {ModelObject} from "../../../src/api/models/models.js";
import {psTable} from "../../../src/cli/psCommand.js";
import {buildTinyChatModel} from "../../fixtures/gguf/tinyModels.js";
import {startTestServer, type TestServer} from "../support/testServer.js";

/**
 * `/v1/models` says what the prompt cache holds of each model's prompts, and `chatserve ps` shows
 * it: a conversation pushed out of the only sequence by another is kept in RAM, and counted under
 * its model alone; a model loaded without a request holds none; one never loaded says nothing.
 */
const agentA = "Agent A rules: read the files first, then plan, then act with care. ".repeat(24);
const agentB = "Agent B guidelines: be brief, and polite to every user you meet. ".repeat(24);

describe("the prompt cache's size in /v1/models and chatserve ps", () => {
    let server: TestServer;

    beforeAll(async () => {
        const model = await buildTinyChatModel();
        const other = await buildTinyChatModel(undefined, {seed: 2});
        // One sequence, so that the second conversation takes the first one's (and the first is kept).
        server = await startTestServer({tiny: model, other, idle: other}, {parallel: 1, ctxSize: 2048});
    }, 120_000);

    afterAll(async () => {
        await server?.stop();
    });

    async function models(): Promise<Map<string, ModelObject>> {
        const body = await (await fetch(`${server.url}/models`)).json() as {data: ModelObject[]};
        return new Map(body.data.map((entry) => [entry.id, entry]));
    }

    it("counts a kept conversation under its model, none under a model that has served no prompt", async () => {
        for (const system of [agentA, agentB])
            await server.client().chat.completions.create({
                model: "tiny", temperature: 0, max_tokens: 16, messages: [{role: "system", content: system}, {role: "user", content: "What now?"}]
            });
        const load = await fetch(`${server.url}/models/other/load`, {method: "POST"});
        expect(load.status).toBe(200);

        const listed = await models();
        const tiny = listed.get("tiny")!.prompt_cache;
        expect(tiny?.ram_entries).toBeGreaterThanOrEqual(1);
        expect(tiny!.ram_bytes).toBeGreaterThan(0);
        expect(tiny!.disk_entries).toBeGreaterThanOrEqual(0);
        expect(listed.get("other")!.prompt_cache).toEqual({ram_bytes: 0, ram_entries: 0, disk_bytes: 0, disk_entries: 0});
        // Its layout (context cells, llama.cpp build) is known only once it loads: no figure rather than a wrong one.
        expect(listed.get("idle")!.prompt_cache).toBeUndefined();
        // One model's entry says the same.
        const one = await (await fetch(`${server.url}/models/tiny`)).json() as ModelObject;
        expect(one.prompt_cache?.ram_bytes).toBe(tiny!.ram_bytes);

        // chatserve ps's CACHED column, from the same entries.
        const rows = psTable([...listed.values()], "CPU", Date.now() / 1000).trimEnd().split("\n").map((line) => line.split(/ {3,}/));
        const cachedColumn = rows[0]!.indexOf("CACHED");
        const cell = (id: string) => rows.find((row) => row[0] === id)?.[cachedColumn];
        expect(cell("tiny")).toMatch(/^\d+(\.\d)? (bytes|KiB|MiB|GiB) RAM( \+ .+ disk)?$/);
        expect(cell("other")).toBe("none");
    });
});
