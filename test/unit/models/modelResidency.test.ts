import {afterEach, describe, expect, it, vi} from "vitest";
import {toModelObject} from "../../../src/api/models/toModelObject.js";
import {createLogger} from "../../../src/logger.js";
import type {ListedModel} from "../../../src/models/listedModel.js";
import type {ModelDescriptor} from "../../../src/models/modelDescriptor.js";
import {ModelRegistry, type HeldModel, type MemorySettings} from "../../../src/models/modelRegistry.js";
import {descriptor, FakeLoader, StaticCatalogue} from "../../http/support/fakeEngine.js";

/** The registry's listing as GET /v1/models writes it (api/models/toModelObject.ts): the fields these tests read are the wire's. */
const listed = (registry: ModelRegistry) => registry.list().map(toModelObject);
const asEntry = async (listing: Promise<ListedModel>) => toModelObject(await listing);

// Which models the registry keeps in memory: by the budget, by keep-alive, and on request. Models
// are sized by their file (`sizeBytes`): with no estimate from a header, that is what they take.

const settle = () => new Promise((resolve) => setImmediate(resolve));

function setup(memory: MemorySettings, descriptors: ModelDescriptor[] = ["a", "b", "c"].map((id) => descriptor(id, {sizeBytes: 400}))) {
    const loader = new FakeLoader();
    const registry = new ModelRegistry(new StaticCatalogue(descriptors), loader.load, {context: {ctxSize: 64, parallel: 1}, memory}, createLogger("silent"));
    const entry = (id: string) => listed(registry).find((model) => model.id === id)!;
    /** A request that uses the model and ends at once. */
    const use = async (id: string, keepAlive?: MemorySettings["keepAlive"]) => (await registry.acquire(id, "chat", {keepAlive})).release();
    return {loader, registry, entry, use};
}

afterEach(() => {
    vi.useRealTimers();
});

describe("residency by memory", () => {
    it("unloads idle models, least recently used first, to make room for another", async () => {
        const {loader, entry, use} = setup({bytes: 1000});
        await use("a");
        await use("b");
        await use("a");
        await use("c");
        await settle();
        expect(loader.events).toEqual(["load a", "load b", "unload b", "load c"]);
        expect(loader.loaded()).toEqual(["a", "c"]);
        expect([entry("a").loaded, entry("b").loaded, entry("c").loaded]).toEqual([true, false, true]);
    });

    it("never unloads a busy model: a request for another waits until its requests end, then is served", async () => {
        const {loader, registry, entry} = setup({bytes: 500});
        const a = await registry.acquire("a", "chat");
        const lease = await a.model.acquireSequence({tokens: [], stopTokens: [], stopStrings: []}, new AbortController().signal);

        let b: HeldModel | null = null;
        const waitingForB = registry.acquire("b", "chat").then((held) => b = held);
        await settle();
        expect(loader.events).toEqual(["load a"]);
        expect(entry("b")).toMatchObject({loading: true, waiting_for_memory: true, loaded: false, active_requests: 1});
        expect(entry("a")).toMatchObject({loaded: true, unloading: true, active_requests: 1});

        // A request for the model being unloaded waits for it to go, then loads it again after b.
        let againA: HeldModel | null = null;
        const waitingForA = registry.acquire("a", "chat").then((held) => againA = held);
        await settle();
        expect(b).toBeNull();

        lease.release();
        a.release();
        await waitingForB;
        expect(loader.events).toEqual(["load a", "unload a", "load b"]);
        expect(loader.made[0]!.model.disposedWhileBusy).toBe(false);
        await settle();
        expect(againA).toBeNull();
        expect(entry("b")).toMatchObject({loaded: true, unloading: true});

        b!.release();
        await waitingForA;
        expect(loader.events).toEqual(["load a", "unload a", "load b", "unload b", "load a"]);
        againA!.release();
    });

    it("answers 503 insufficient_memory with the numbers when the busy models stay busy longer than a request waits, and keeps them", async () => {
        const {loader, registry, entry} = setup({bytes: 500, waitMs: 30});
        const a = await registry.acquire("a", "chat");
        const error = await registry.acquire("b", "chat").catch((caught: unknown) => caught);
        expect(error).toMatchObject({status: 503, code: "insufficient_memory", param: "model", headers: {"Retry-After": "5"}});
        expect((error as Error).message).toMatch(/'b': it needs 400 bytes, and 100 bytes of the 500 bytes chatserve may use \(--memory-limit\) is free/);
        expect((error as Error).message).toContain("'a' (400 bytes, 1 request, to be unloaded when they end)");
        // Nobody waits for b any more: a no longer has to go.
        expect(entry("a")).toMatchObject({loaded: true, unloading: false});
        expect(entry("b")).toMatchObject({loaded: false, loading: false, active_requests: 0});
        a.release();
        await settle();
        expect(loader.events).toEqual(["load a"]);
    });

    it("stops waiting for room when the request's client leaves, and no longer asks the busy model to go", async () => {
        const {loader, registry, entry} = setup({bytes: 500});
        const a = await registry.acquire("a", "chat");
        const client = new AbortController();
        const waiting = registry.acquire("b", "chat", {signal: client.signal}).catch((caught: unknown) => caught);
        await settle();
        expect(entry("a").unloading).toBe(true);
        client.abort(new Error("client gone"));
        expect(await waiting).toMatchObject({message: "client gone"});
        expect(entry("a")).toMatchObject({loaded: true, unloading: false});
        expect(entry("b")).toMatchObject({loading: false, active_requests: 0});
        a.release();
        await settle();
        expect(loader.events).toEqual(["load a"]);
    });

    it("refuses at once, with a 400 and the numbers, a model that could not fit even alone, and lists it unavailable", async () => {
        const {loader, registry, entry} = setup({bytes: 500, source: "--memory-limit"}, [descriptor("big", {sizeBytes: 2 * 1024 * 1024})]);
        const error = await registry.acquire("big", "chat").catch((caught: unknown) => caught);
        expect(error).toMatchObject({status: 400, code: "model_too_large", param: "model"});
        expect((error as Error).message).toBe("The model 'big' needs 2 MiB of memory (its weights, and the KV cache and buffers of 1 × 64 tokens), " +
            "more than the 500 bytes chatserve may use (--memory-limit), even with no other model loaded. " +
            "A smaller --ctx-size or --parallel, or a larger --memory-limit, would let it load.");
        expect(entry("big")).toMatchObject({status: "unavailable", loaded: false, error: (error as Error).message});
        expect(loader.events).toEqual([]);
    });

    it("counts models against --max-loaded-models too", async () => {
        const {loader, use} = setup({models: 1});
        await use("a");
        await use("b");
        await settle();
        expect(loader.events).toEqual(["load a", "unload a", "load b"]);
    });

    it("starts waiting loads in the order they came", async () => {
        const {loader, registry} = setup({bytes: 500});
        const a = await registry.acquire("a", "chat");
        const order: string[] = [];
        const b = registry.acquire("b", "chat").then((held) => {
            order.push("b");
            return held;
        });
        await settle();
        const c = registry.acquire("c", "chat").then((held) => {
            order.push("c");
            return held;
        });
        await settle();
        a.release();
        (await b).release();
        (await c).release();
        expect(order).toEqual(["b", "c"]);
        expect(loader.events).toEqual(["load a", "unload a", "load b", "unload b", "load c"]);
    });

    // node-llama-cpp's getters throw once a model is disposed: a listing during an unload answered 500.
    it("lists a model while it is being unloaded without asking the model anything", async () => {
        const {loader, registry, entry, use} = setup({keepAlive: {ms: 0}});
        let finishDisposing = () => {};
        loader.prepare = (model) => {
            let disposing = false;
            Object.defineProperty(model, "supportsInfill", {get: () => {
                if (disposing)
                    throw new Error("Object is disposed");
                return false;
            }});
            model.dispose = () => {
                disposing = true;
                return new Promise<void>((resolve) => finishDisposing = resolve);
            };
        };
        await use("a");
        expect(entry("a")).toMatchObject({loaded: true, unloading: true, capabilities: ["chat", "completion"]});
        // Requests that come meanwhile wait for it to go, then load it again.
        const again = registry.acquire("a", "chat");
        await settle();
        expect(loader.events).toEqual(["load a"]);
        finishDisposing();
        (await again).release();
        expect(loader.events).toEqual(["load a", "load a"]);
    });

    it("counts what a model took when it last loaded, not its estimate, when it loads again", async () => {
        const {loader, entry, use} = setup({bytes: 1000});
        // The header's estimate says 400; llama.cpp counts 700 (say, weights it repacks for the CPU).
        loader.prepare = (model, id) => model.memory = {ram: id === "a" ? 700 : 400, vram: 0};
        await use("a");
        await use("b");
        await settle();
        expect(entry("a")).toMatchObject({loaded: false, memory_bytes: 700, memory_measured: true});
        // 700 beside b's 400 does not fit: b goes first.
        await use("a");
        await settle();
        expect(loader.events).toEqual(["load a", "unload a", "load b", "unload b", "load a"]);
    });

    it("unloads idle models when a load takes more than it was weighed at and the budget is exceeded", async () => {
        const {loader, use} = setup({bytes: 1000});
        loader.prepare = (model, id) => model.memory = {ram: id === "c" ? 500 : 300, vram: 0};
        await use("a");
        await use("b");
        // 300 + 300 + c's estimated 400 fits; its 500 once loaded does not: the least recently used idle one goes.
        await use("c");
        await settle();
        expect(loader.events).toEqual(["load a", "load b", "load c", "unload a"]);
    });

    it("shows the estimate before loading and llama.cpp's account once loaded", async () => {
        const {loader, registry, entry} = setup({});
        loader.prepare = (model) => model.memory = {ram: 300, vram: 50};
        expect(entry("a")).toMatchObject({memory_bytes: 400, memory_measured: false, memory_gpu_bytes: 0});
        const a = await registry.acquire("a", "chat");
        expect(entry("a")).toMatchObject({memory_bytes: 350, memory_measured: true, memory_gpu_bytes: 50, active_requests: 1});
        a.release();
    });
});

describe("keep-alive", () => {
    it("unloads an idle model when its keep-alive ends, and says when in expires_at", async () => {
        vi.useFakeTimers({now: 1_800_000_000_000});
        const {loader, entry, use, registry} = setup({keepAlive: {ms: 300_000}});
        await use("a");
        expect(entry("a")).toMatchObject({keep_alive: 300, expires_at: 1_800_000_300});
        await vi.advanceTimersByTimeAsync(299_000);
        expect(loader.loaded()).toEqual(["a"]);
        // A request holds it again: the clock starts over when it ends.
        const held = await registry.acquire("a", "chat");
        expect(entry("a").expires_at).toBeNull();
        await vi.advanceTimersByTimeAsync(10_000);
        held.release();
        await vi.advanceTimersByTimeAsync(299_000);
        expect(loader.loaded()).toEqual(["a"]);
        await vi.advanceTimersByTimeAsync(1000);
        expect(loader.events).toEqual(["load a", "unload a"]);
        expect(entry("a")).toMatchObject({loaded: false, expires_at: null});
    });

    it("unloads after each request with 0, and a request's keep_alive replaces --keep-alive for that model", async () => {
        const {loader, use} = setup({keepAlive: null});
        await use("a", {ms: 0});
        await settle();
        expect(loader.events).toEqual(["load a", "unload a"]);
        await use("b");
        await settle();
        expect(loader.loaded()).toEqual(["b"]);

        const zero = setup({keepAlive: {ms: 0}});
        await zero.use("a");
        await zero.use("b", "forever");
        await settle();
        expect(zero.loader.events).toEqual(["load a", "unload a", "load b"]);
    });

    it("never unloads a model kept with -1 to make room: others wait for it, then get their 503", async () => {
        const {loader, registry, use, entry} = setup({bytes: 500, waitMs: 30, keepAlive: "forever"});
        await use("a");
        expect(entry("a")).toMatchObject({keep_alive: -1, expires_at: null});
        const error = await registry.acquire("b", "chat").catch((caught: unknown) => caught);
        expect(error).toMatchObject({status: 503, code: "insufficient_memory"});
        expect((error as Error).message).toContain("'a' (400 bytes, kept loaded by a keep-alive of -1)");
        expect(loader.events).toEqual(["load a"]);
    });
});

describe("load and unload on purpose", () => {
    it("warms a model once for concurrent calls, and leaves it loaded", async () => {
        const {loader, registry} = setup({});
        loader.hold();
        const first = asEntry(registry.warm("a"));
        const second = asEntry(registry.warm("a"));
        await settle();
        expect(listed(registry)[0]).toMatchObject({status: "loading", loading: true, waiting_for_memory: false});
        loader.finishLoads();
        expect(await first).toMatchObject({id: "a", loaded: true, loading: false, active_requests: 0});
        await second;
        expect(loader.events).toEqual(["load a"]);
    });

    it("unloads an idle model at once, and a busy one once its requests end, without cutting them", async () => {
        const {loader, registry, use} = setup({});
        await use("a");
        expect(await asEntry(registry.unload("a"))).toMatchObject({id: "a", loaded: false, unloading: false});
        expect(loader.events).toEqual(["load a", "unload a"]);

        const held = await registry.acquire("b", "chat");
        const lease = await held.model.acquireSequence({tokens: [], stopTokens: [], stopStrings: []}, new AbortController().signal);
        let answered = false;
        const unloading = asEntry(registry.unload("b")).then((entry) => {
            answered = true;
            return entry;
        });
        await settle();
        expect(answered).toBe(false);
        expect(listed(registry).find((model) => model.id === "b")).toMatchObject({loaded: true, unloading: true});
        lease.release();
        held.release();
        expect(await unloading).toMatchObject({loaded: false});
        expect(loader.model("b").disposedWhileBusy).toBe(false);
        // Not loaded: nothing to do.
        expect(await asEntry(registry.unload("c"))).toMatchObject({loaded: false});
        expect(loader.events).toEqual(["load a", "unload a", "load b", "unload b"]);
    });

    it("unloads even a model kept with -1 when asked", async () => {
        const {loader, registry, use} = setup({});
        await use("a", "forever");
        await registry.unload("a");
        expect(loader.events).toEqual(["load a", "unload a"]);
    });
});
