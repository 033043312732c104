import request from "supertest";
import {describe, expect, it} from "vitest";
import {parseSettingsFile} from "../../../../src/models/modelSettings.js";
import type {LoadedSettings} from "../../../../src/models/settingsFile.js";
import {descriptor, FakeLoader} from "../../support/fakeEngine.js";
import {createTestApp} from "../../support/testApp.js";

// chatserve.json over HTTP, with the engine double: what /v1/models says before a load, sampling
// defaults under the request's own fields, and a change of load-time settings applied once idle.

function settings(models: Record<string, unknown>, templates: Record<string, string> = {}): LoadedSettings {
    return {table: parseSettingsFile(JSON.stringify({models})), templates: new Map(Object.entries(templates))};
}

function appWithSettings() {
    const loader = new FakeLoader();
    const descriptors = [
        descriptor("chat-a", {capabilities: ["chat", "completion", "tools"], trainedContextLength: 4096}),
        descriptor("chat-b", {capabilities: ["chat", "completion"], trainedContextLength: 4096})
    ];
    const t = createTestApp({descriptors, loader});
    return {loader, ...t};
}

const chat = (model: string, extra: Record<string, unknown> = {}) => ({model, messages: [{role: "user", content: "hi"}], ...extra});

describe("chatserve.json", () => {
    it("shows each model's context, parallel, keep-alive and aliases in /v1/models before it loads", async () => {
        const t = appWithSettings();
        t.registry.applySettings(settings({
            "chat-*": {ctx_size: 1024, keep_alive: "10m"},
            "chat-a": {ctx_size: 2048, parallel: 3, aliases: ["helper"]}
        }));
        const {body} = await request(t.app).get("/v1/models").expect(200);
        const byId = Object.fromEntries((body.data as Array<{id: string}>).map((entry) => [entry.id, entry]));
        expect(byId["chat-a"]).toMatchObject({context_length: 2048, parallel: 3, keep_alive: 600, aliases: ["helper"], loaded: false});
        expect(byId["chat-b"]).toMatchObject({context_length: 1024, parallel: 1, keep_alive: 600});
        expect(byId["helper"]).toMatchObject({alias_for: "chat-a"});
        expect(t.loader.made).toHaveLength(0);

        await request(t.app).post("/v1/chat/completions").send(chat("helper")).expect(200);
        expect(t.loader.made.map(({id, plan}) => [id, plan.contextLength, plan.parallel])).toEqual([["chat-a", 2048, 3]]);
    });

    it("fills sampling the request leaves out from the model's defaults; the request's own fields win, and never reload", async () => {
        const t = appWithSettings();
        t.registry.applySettings(settings({"chat-a": {temperature: 0, top_p: 0.5, top_k: 7, min_p: 0.1, repeat_penalty: 1.2}}));
        await request(t.app).post("/v1/chat/completions").send(chat("chat-a")).expect(200);
        await request(t.app).post("/v1/chat/completions").send(chat("chat-a", {temperature: 0.8, top_p: 0.9})).expect(200);
        await request(t.app).post("/v1/completions").send({model: "chat-a", prompt: "hi"}).expect(200);
        const model = t.loader.model("chat-a");
        expect(model.generations.map(({options}) => options.sampling)).toEqual([
            expect.objectContaining({temperature: 0, topP: 0.5, topK: 7, minP: 0.1, repeatPenalty: 1.2}),
            expect.objectContaining({temperature: 0.8, topP: 0.9, topK: 7}),
            expect.objectContaining({temperature: 0, topP: 0.5})
        ]);
        expect(t.loader.events).toEqual(["load chat-a"]);
    });

    it("reloads a model whose context changed once its reply ends, never during it; a sampling change reloads nothing", async () => {
        const t = appWithSettings();
        let finish = () => {};
        const busy = new Promise<void>((resolve) => finish = resolve);
        t.loader.prepare = (model) => model.script = {pieces: ["Hello"], busyUntil: busy};
        t.registry.applySettings(settings({"chat-a": {ctx_size: 1024}}));
        const reply = request(t.app).post("/v1/chat/completions").send(chat("chat-a")).then((res) => res);
        while (t.loader.made.length === 0 || t.loader.model("chat-a").activeLeases === 0)
            await new Promise((resolve) => setTimeout(resolve, 5));
        const first = t.loader.model("chat-a");

        t.registry.applySettings(settings({"chat-a": {ctx_size: 1024, temperature: 0.2}}));
        expect(first.disposed).toBe(false);
        t.registry.applySettings(settings({"chat-a": {ctx_size: 2048}}));
        expect(first.disposed).toBe(false);
        finish();
        expect((await reply).status).toBe(200);
        expect(first.disposedWhileBusy).toBe(false);

        t.loader.prepare = () => {};
        await request(t.app).post("/v1/chat/completions").send(chat("chat-a")).expect(200);
        expect(first.disposed).toBe(true);
        expect(t.loader.events).toEqual(["load chat-a", "unload chat-a", "load chat-a"]);
        expect(t.loader.made.at(-1)!.plan.contextLength).toBe(2048);
    });

    it("reloads a model whose chat template changed, with the template's text in its plan", async () => {
        const t = appWithSettings();
        await request(t.app).post("/v1/models/chat-a/load").expect(200);
        t.registry.applySettings(settings({"chat-a": {chat_template: "t.jinja"}}, {"t.jinja": "{{ messages }}"}));
        await request(t.app).post("/v1/chat/completions").send(chat("chat-a")).expect(200);
        expect(t.loader.events).toEqual(["load chat-a", "unload chat-a", "load chat-a"]);
        expect(t.loader.made.at(-1)!.plan.chatTemplate).toBe("{{ messages }}");
    });

    it("refuses an alias that --model-alias gives another model, keeping the settings in force", async () => {
        const t = createTestApp({modelAliases: [{name: "helper", model: "tiny-chat"}]});
        expect(() => t.registry.applySettings(settings({"sub/nested": {aliases: ["helper"]}}))).toThrow(/given twice/);
        const {body} = await request(t.app).get("/v1/models/helper").expect(200);
        expect(body.alias_for).toBe("tiny-chat");
    });
});
