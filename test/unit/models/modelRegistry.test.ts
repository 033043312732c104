import {describe, expect, it} from "vitest";
import type {LoadedModel} from "../../../src/engine/loadedModel.js";
import {ApiError, ModelNotFoundError, ModelUnavailableError} from "../../../src/errors.js";
import {toModelObject} from "../../../src/api/models/toModelObject.js";
import {createLogger} from "../../../src/logger.js";
import type {ContextPlan} from "../../../src/models/contextPlan.js";
import {ModelAliases, type ModelAlias} from "../../../src/models/modelAliases.js";
import type {ListedModel} from "../../../src/models/listedModel.js";
import type {ModelDescriptor} from "../../../src/models/modelDescriptor.js";
import {ModelRegistry} from "../../../src/models/modelRegistry.js";
import {descriptor, FakeModel, StaticCatalogue} from "../../http/support/fakeEngine.js";

/** The registry's listing as GET /v1/models writes it (api/models/toModelObject.ts): the fields these tests read are the wire's. */
const listed = (registry: ModelRegistry) => registry.list().map(toModelObject);
const asEntry = async (listing: Promise<ListedModel>) => toModelObject(await listing);

/** A loader whose loads finish when the test says so. */
function deferredLoader() {
    const pending: Array<{descriptor: ModelDescriptor, plan: ContextPlan, resolve: (model: LoadedModel) => void, reject: (error: Error) => void}> = [];
    const load = (d: ModelDescriptor, plan: ContextPlan) => new Promise<LoadedModel>((resolve, reject) => pending.push({descriptor: d, plan, resolve, reject}));
    return {load, pending};
}

function setup(descriptors: ModelDescriptor[] = [descriptor("m")], aliases: ModelAlias[] = []) {
    const catalogue = new StaticCatalogue(descriptors);
    const loader = deferredLoader();
    const registry = new ModelRegistry(catalogue, loader.load, {context: {ctxSize: 1024, parallel: 2}, aliases: new ModelAliases(aliases)}, createLogger("silent"));
    return {catalogue, loader, registry};
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("ModelRegistry", () => {
    it("lists models as available, with the context a request gets before loading", () => {
        const {registry} = setup([
            descriptor("long", {trainedContextLength: 32768}),
            descriptor("short", {trainedContextLength: 512}),
            descriptor("unknown", {trainedContextLength: null})
        ]);
        expect(listed(registry).map((m) => [m.id, m.status, m.loaded, m.context_length])).toEqual([
            ["long", "available", false, 1024],
            ["short", "available", false, 512],
            ["unknown", "available", false, 1024]
        ]);
    });

    it("lists what a request gets and what the KV cache costs, and loads the model with that plan", async () => {
        const catalogue = new StaticCatalogue([descriptor("m", {trainedContextLength: 32768, kvCache: (contextSize, sequences) => contextSize * sequences * 10})]);
        const loader = deferredLoader();
        const registry = new ModelRegistry(catalogue, loader.load, {context: {freeMemoryBytes: 1_000_000 + 1234}}, createLogger("silent"));
        // Half of the memory beside the weights (500,000 bytes) holds one sequence of 32768 tokens (327,680 bytes), not two.
        expect(listed(registry)[0]).toMatchObject({context_length: 32768, parallel: 1, kv_cache_bytes: 327_680});
        expect(listed(registry)[0]).not.toHaveProperty("context_memory_bytes");

        const loaded = registry.acquire("m", "chat");
        await settle();
        expect(loader.pending[0]!.plan).toEqual({contextLength: 32768, parallel: 1, kvCacheBytes: 327_680});
        const model = Object.assign(new FakeModel(), {contextMemoryBytes: 400_000});
        loader.pending[0]!.resolve(model);
        await loaded;
        expect(listed(registry)[0]).toMatchObject({parallel: 1, kv_cache_bytes: 327_680, context_memory_bytes: 400_000});
    });

    it("loads a model once for concurrent requests and reports loading, then loaded", async () => {
        const {registry, loader} = setup();
        const first = registry.acquire("m", "chat");
        const second = registry.acquire("m", "chat");
        await settle();
        expect(loader.pending).toHaveLength(1);
        expect((await asEntry(registry.describe("m"))).status).toBe("loading");

        const model = new FakeModel();
        loader.pending[0]!.resolve(model);
        expect((await first).model).toBe(model);
        expect((await second).model).toBe(model);
        expect(await asEntry(registry.describe("m"))).toMatchObject({status: "loaded", loaded: true, context_length: model.contextLength});
        expect((await registry.acquire("m", "chat")).model).toBe(model);
        expect(loader.pending).toHaveLength(1);
    });

    it("lets any number of requests wait for a load without a listener-leak warning", async () => {
        const warnings: string[] = [];
        const onWarning = (warning: Error) => warnings.push(warning.name);
        process.on("warning", onWarning);
        try {
            const {registry, loader} = setup();
            const waiting = Array.from({length: 20}, () => registry.acquire("m", "chat"));
            await settle();
            loader.pending[0]!.resolve(new FakeModel());
            await Promise.all(waiting);
            await settle();
            expect(warnings).not.toContain("MaxListenersExceededWarning");
        } finally {
            process.off("warning", onWarning);
        }
    });

    it("unloads a model whose file has left the folder, once asked after a rescan", async () => {
        const descriptors = [descriptor("m"), descriptor("kept")];
        const {registry, loader} = setup(descriptors);
        const loaded = registry.acquire("m", "chat");
        await settle();
        const model = new FakeModel();
        loader.pending[0]!.resolve(model);
        await loaded;

        registry.releaseStale();
        await settle();
        expect(model.disposed).toBe(false);
        descriptors.splice(0, 1);
        registry.releaseStale();
        await settle();
        expect(model.disposed).toBe(true);
        // Requests still waiting for it learn why, and that a retry is worth it.
        expect(model.stoppedQueueing).toMatchObject({status: 503, code: "model_unloaded", headers: {"Retry-After": "1"}});
        expect(model.stoppedQueueing?.message).toContain("left the models folder");
        expect(listed(registry).map((entry) => entry.id)).toEqual(["kept"]);
    });

    it("lists fill-in-the-middle as the loaded model knows it, not as its header guessed", async () => {
        const {registry, loader} = setup([descriptor("guessed", {capabilities: ["chat", "completion", "fim"]}), descriptor("found")]);
        for (const [id, supportsInfill] of [["guessed", false], ["found", true]] as const) {
            const loaded = registry.acquire(id, "completion");
            await settle();
            const model = new FakeModel();
            model.supportsInfill = supportsInfill;
            loader.pending.at(-1)!.resolve(model);
            await loaded;
        }
        expect(listed(registry).map((m) => [m.id, m.capabilities])).toEqual([
            ["guessed", ["chat", "completion"]],
            ["found", ["chat", "completion", "fim"]]
        ]);
    });

    it("rescans before answering model_not_found", async () => {
        const {registry, catalogue} = setup();
        const error = await registry.acquire("ghost", "chat").catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ModelNotFoundError);
        expect(catalogue.refreshes).toBe(1);
        await expect(registry.describe("ghost")).rejects.toMatchObject({status: 404, code: "model_not_found"});
    });

    it("quotes only the start of a very long model id (it fits under the body limit; the reply need not repeat it)", async () => {
        const {registry} = setup();
        const error = await registry.acquire(`m${"x".repeat(100_000)}`, "chat").catch((e: unknown) => e);
        expect(error).toMatchObject({status: 404, code: "model_not_found", message: expect.stringContaining(`'m${"x".repeat(199)}…'`)});
        expect((error as Error).message.length).toBeLessThan(300);
    });

    describe("aliases", () => {
        const aliases: ModelAlias[] = [{name: "gpt-4o", model: "m"}, {name: "claude-*", model: "m"}, {name: "embed-*", model: "emb"}];
        const descriptors = () => [descriptor("m"), descriptor("emb", {capabilities: ["embeddings"]})];

        it("serves an alias and a name a pattern covers with the one model, loaded once", async () => {
            const {registry, loader} = setup(descriptors(), aliases);
            const byAlias = registry.acquire("gpt-4o", "chat");
            const byPattern = registry.acquire("claude-haiku-4-5", "chat");
            const byId = registry.acquire("m", "chat");
            await settle();
            expect(loader.pending.map((load) => load.descriptor.id)).toEqual(["m"]);
            const model = new FakeModel();
            loader.pending[0]!.resolve(model);
            expect((await Promise.all([byAlias, byPattern, byId])).map((held) => held.model)).toEqual([model, model, model]);
        });

        it("lists an exact alias as an entry of its own pointing at its model, and every alias on the model's entry", async () => {
            const {registry} = setup(descriptors(), [...aliases, {name: "gone", model: "missing"}]);
            const list = listed(registry);
            expect(list.map((entry) => [entry.id, entry.alias_for])).toEqual([["m", undefined], ["emb", undefined], ["gpt-4o", "m"], ["gone", "missing"]]);
            const [model, , alias, dangling] = list;
            expect(model!.aliases).toEqual(["gpt-4o", "claude-*"]);
            expect(alias).toEqual({...model, id: "gpt-4o", alias_for: "m", aliases: undefined});
            expect(alias).not.toHaveProperty("aliases");
            expect(dangling).toMatchObject({status: "unavailable", error: "it is an alias of 'missing', which the models folder does not hold"});
            await expect(asEntry(registry.describe("claude-x"))).resolves.toMatchObject({id: "claude-x", alias_for: "m", status: "available"});
            await expect(asEntry(registry.describe("m"))).resolves.toMatchObject({id: "m", aliases: ["gpt-4o", "claude-*"]});
        });

        it("lets a model's own id win over an alias of that name", async () => {
            const {registry, loader} = setup([descriptor("m"), descriptor("gpt-4o")], aliases);
            const request = registry.acquire("gpt-4o", "chat");
            await settle();
            expect(loader.pending[0]!.descriptor.id).toBe("gpt-4o");
            expect(listed(registry).map((entry) => entry.id)).toEqual(["m", "gpt-4o"]);
            loader.pending[0]!.resolve(new FakeModel());
            await request;
        });

        it("answers 404 naming the alias and its missing model, after a rescan", async () => {
            const {registry, catalogue} = setup([descriptor("other")], aliases);
            const error = await registry.acquire("gpt-4o", "chat").catch((e: unknown) => e);
            expect(error).toMatchObject({status: 404, code: "model_not_found", param: "model"});
            expect((error as Error).message).toMatch(/^The model 'gpt-4o' is an alias of 'm', which the models folder does not hold\./);
            expect(catalogue.refreshes).toBe(1);
        });

        it("still answers 404 for a name no alias covers", async () => {
            const {registry} = setup(descriptors(), aliases);
            await expect(registry.acquire("gpt-5", "chat")).rejects.toBeInstanceOf(ModelNotFoundError);
        });

        it("names both the alias and its model when the model cannot serve the request", async () => {
            const {registry} = setup(descriptors(), aliases);
            const error = await registry.acquire("embed-small", "chat").catch((e: unknown) => e);
            expect(error).toMatchObject({status: 400, code: "unsupported_model"});
            expect((error as Error).message).toBe("The model 'embed-small' (an alias of 'emb') does not support chat.");
        });
    });

    it("answers model_not_found from what it knows when that rescan fails", async () => {
        const {registry, catalogue} = setup();
        catalogue.refreshFailure = Object.assign(new Error("EMFILE: too many open files"), {code: "EMFILE"});
        await expect(registry.acquire("ghost", "chat")).rejects.toBeInstanceOf(ModelNotFoundError);
        expect(catalogue.refreshes).toBe(1);
    });

    it("refuses a model whose file is unreadable, without loading it", async () => {
        const {registry, loader} = setup([descriptor("bad", {error: "not a readable GGUF file", capabilities: []})]);
        const error = await registry.acquire("bad", "chat").catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ModelUnavailableError);
        expect((error as ApiError).message).toContain("not a readable GGUF file");
        expect(loader.pending).toHaveLength(0);
    });

    it("refuses a capability the model lacks", async () => {
        const {registry} = setup([descriptor("emb", {capabilities: ["embeddings"]})]);
        await expect(registry.acquire("emb", "chat")).rejects.toMatchObject({status: 400, code: "unsupported_model", param: "model"});
    });

    it("marks a model whose load failed as unavailable, with the reason", async () => {
        const {registry, loader} = setup();
        const request = registry.acquire("m", "chat");
        await settle();
        loader.pending[0]!.reject(new Error("out of memory"));
        const error = await request.catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ModelUnavailableError);
        expect((error as ApiError).message).toContain("out of memory");
        expect(listed(registry)[0]).toMatchObject({status: "unavailable", loaded: false, error: "out of memory"});
    });

    it("answers a load that failed because its file left the folder meanwhile with 503 model_unloaded, not a 400", async () => {
        const descriptors = [descriptor("m")];
        const {registry, loader, catalogue} = setup(descriptors);
        const request = registry.acquire("m", "chat");
        await settle();
        descriptors.splice(0); // the file is deleted: the next rescan no longer finds it
        loader.pending[0]!.reject(new Error("gguf_init_from_file: failed to open GGUF file '/models/m.gguf' (No such file or directory)"));
        expect(await request.catch((e: unknown) => e)).toMatchObject({status: 503, code: "model_unloaded", headers: {"Retry-After": "1"}});
        expect(catalogue.refreshes).toBe(1);
        await expect(registry.acquire("m", "chat")).rejects.toBeInstanceOf(ModelNotFoundError);
    });

    it("disposes loaded models on dispose", async () => {
        const {registry, loader} = setup();
        const request = registry.acquire("m", "chat");
        await settle();
        const model = new FakeModel();
        loader.pending[0]!.resolve(model);
        await request;
        await registry.dispose();
        expect(model.disposed).toBe(true);
        expect(listed(registry)[0]!.status).toBe("available");
    });

    it("waits on dispose for a model still loading, then frees it", async () => {
        const {registry, loader} = setup();
        const request = registry.acquire("m", "chat");
        await settle();
        let disposed = false;
        const disposing = registry.dispose().then(() => disposed = true);
        await settle();
        expect(disposed).toBe(false);
        const model = new FakeModel();
        loader.pending[0]!.resolve(model);
        await request;
        await disposing;
        expect(model.disposed).toBe(true);
    });

    /** Model "m" loaded, then its file changed in the folder (the catalogue's next descriptor). */
    async function loadedThenChanged() {
        const descriptors = [descriptor("m")];
        const {registry, loader} = setup(descriptors);
        const oldModel = new FakeModel();
        const first = registry.acquire("m", "chat");
        await settle();
        loader.pending[0]!.resolve(oldModel);
        await first;
        descriptors[0] = descriptor("m", {sizeBytes: 999, modifiedAt: 1_800_000_000});
        return {registry, loader, oldModel};
    }

    // A changed file gets a new descriptor and a new load: the old model must not be left in memory.
    it("disposes the previous model when its file changed and it is loaded again", async () => {
        const {registry, loader, oldModel} = await loadedThenChanged();
        const second = registry.acquire("m", "chat");
        await settle();
        loader.pending[1]!.resolve(new FakeModel());
        await second;
        expect(oldModel.stoppedQueueing).toMatchObject({code: "model_unloaded", message: expect.stringContaining("its file changed")});
        await registry.dispose();
        expect(oldModel.disposed).toBe(true);
    });

    it("unloads a model whose file changed at the rescan, before any request asks for it again", async () => {
        const {registry, loader, oldModel} = await loadedThenChanged();
        registry.releaseStale();
        await settle();
        expect(oldModel.stoppedQueueing).toMatchObject({code: "model_unloaded", message: expect.stringContaining("its file changed")});
        expect(oldModel.disposed).toBe(true);
        expect(listed(registry).map((entry) => [entry.id, entry.loaded])).toEqual([["m", false]]);
        const next = registry.acquire("m", "chat");
        await settle();
        expect(loader.pending).toHaveLength(2);
        loader.pending[1]!.resolve(new FakeModel());
        await next;
    });

    it("refuses requests waiting for a model still loading as soon as shutdown begins, and every later one", async () => {
        const {registry, loader} = setup();
        const waiting = registry.acquire("m", "chat").catch((error: unknown) => error);
        await settle();
        registry.stopQueueing();
        expect(await waiting).toMatchObject({status: 503, code: "shutting_down"});
        await expect(registry.acquire("m", "chat")).rejects.toMatchObject({status: 503, code: "shutting_down"});

        // The load itself goes on, and dispose frees what it made.
        const model = new FakeModel();
        loader.pending[0]!.resolve(model);
        await registry.dispose();
        expect(model.disposed).toBe(true);
    });

    it("refuses, without loading it, a model found by a rescan that ended after shutdown began", async () => {
        const descriptors: ModelDescriptor[] = [];
        const catalogue = new StaticCatalogue(descriptors);
        let finishRescan = () => {};
        catalogue.refresh = () => new Promise<void>((resolve) => finishRescan = () => {
            descriptors.push(descriptor("new"));
            resolve();
        });
        const loader = deferredLoader();
        const registry = new ModelRegistry(catalogue, loader.load, {context: {ctxSize: 1024, parallel: 2}}, createLogger("silent"));
        const request = registry.acquire("new", "chat").catch((error: unknown) => error);
        await settle();
        registry.stopQueueing();
        finishRescan();
        expect(await request).toMatchObject({status: 503, code: "shutting_down"});
        expect(loader.pending).toHaveLength(0);
    });

    // llama.cpp must outlive a batch that a retired model is still decoding: freeing it under the
    // decode crashed the process.
    it("waits on dispose for a retired model that is still freeing its weights", async () => {
        const {registry, model} = await retiredModel();
        expect(model.disposing).toBe(true);

        let disposed = false;
        const disposing = registry.dispose().then(() => disposed = true);
        await settle();
        expect(disposed).toBe(false);
        model.finishDisposing();
        await disposing;
        expect(model.disposed).toBe(true);
    });

    it("logs a retired model whose unloading failed, instead of leaving an unhandled rejection", async () => {
        const {registry, model} = await retiredModel();
        model.finishDisposing(new Error("the context would not free"));
        await registry.dispose();
        expect(model.disposed).toBe(false);
    });
});

/** A registry whose one model was loaded, then retired when its file left the folder: it is being disposed. */
async function retiredModel() {
    const descriptors = [descriptor("m")];
    const {registry, loader} = setup(descriptors);
    const model = new SlowlyDisposedModel();
    const loaded = registry.acquire("m", "chat");
    await settle();
    loader.pending[0]!.resolve(model);
    await loaded;
    descriptors.splice(0, 1);
    registry.releaseStale();
    await settle();
    return {registry, model};
}

/** A model whose dispose ends when the test says so (with an error, if given one). */
class SlowlyDisposedModel extends FakeModel {
    public disposing = false;
    private finish: (error?: Error) => void = () => {};

    public override async dispose(): Promise<void> {
        this.disposing = true;
        const error = await new Promise<Error | undefined>((resolve) => this.finish = resolve);
        if (error != null)
            throw error;
        this.disposed = true;
    }

    public finishDisposing(error?: Error): void {
        this.finish(error);
    }
}
