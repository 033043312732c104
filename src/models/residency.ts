import type {LoadedModel} from "../engine/loadedModel.js";
import type {ContextPlan} from "./contextPlan.js";
import type {KeepAlive} from "./keepAlive.js";
import {totalBytes, type MemoryFootprint} from "./memoryEstimate.js";
import type {ModelDescriptor} from "./modelDescriptor.js";

/**
 * "waiting": for room in the memory budget (no memory claimed yet); "loading": memory claimed,
 * weights being read; "loaded": serving; "failed": its load failed (the reason in `error`).
 */
export type ResidencyState = "waiting" | "loading" | "loaded" | "failed";

/**
 * What /v1/models says of a loaded model, read once as it loads: its getters throw once it is
 * disposed, and a listing may come while it is being unloaded.
 */
export type LoadedFacts = {
    contextLength: number,
    supportsInfill: boolean,
    contextMemoryBytes?: number,
    memory?: MemoryFootprint,
    /** Why it takes no images (no projector, or one that failed to load); null when it does. */
    imageInputRefusal?: string | null,
    /** Why its planned draft model is not used (a tokenizer unlike its own); null or absent when it is, or none was planned. */
    draftRefusal?: string | null
};

/**
 * One model's stay in memory, from the request that asked for it until its memory is freed: its
 * state, the requests holding it, when it was last used and how long it may stay idle. The
 * scheduler (modelScheduler.ts, loadQueue.ts) decides what happens to it, and the ledger
 * (residencyLedger.ts) moves it from state to state; this only keeps the facts and the timer.
 */
export class Residency {
    public state: ResidencyState = "waiting";
    public model?: LoadedModel;
    /** Set when it has loaded. */
    public facts?: LoadedFacts;
    public error?: string;
    /** Requests holding it: waiting for it to load, queued for a sequence, or generating. Never unloaded while above 0. */
    public holds = 0;
    /** When a request last let go of it, as a count of such moments across models (milliseconds tie): least recently used goes first. */
    public lastUsed = nextUse();
    /** The last request's keep_alive, else --keep-alive; null: until its memory is needed. */
    public keepAlive: KeepAlive | null = null;
    /** When the keep-alive timer will unload it (ms since the epoch); null when none runs. */
    public expiresAtMs: number | null = null;
    /** Chosen to go: it is unloaded once its holds reach 0, and requests that come meanwhile wait for it to go. */
    public unloading = false;
    /** The model whose load it is being unloaded for (an unload no longer needed when that one loads or gives up). */
    public makingRoomFor: Residency | null = null;
    /** Its weights being freed; set once, so that they are freed once. */
    public disposal: Promise<void> | null = null;
    /** Resolves with the model once loaded; rejects when its load fails, or when it is given up before it got memory. */
    public readonly ready: Promise<LoadedModel>;
    private settleReady!: {resolve: (model: Promise<LoadedModel>) => void, reject: (error: unknown) => void};
    private timer: NodeJS.Timeout | null = null;

    public constructor(
        public readonly descriptor: ModelDescriptor,
        public readonly plan: ContextPlan,
        /** What it takes in memory, estimated before it loads. */
        public readonly estimate: MemoryFootprint
    ) {
        this.ready = new Promise<LoadedModel>((resolve, reject) => this.settleReady = {resolve, reject});
        // Requests that gave up waiting no longer listen: its failure must not be an unhandled rejection.
        this.ready.catch(() => {});
    }

    public get id(): string {
        return this.descriptor.id;
    }

    /** What it holds in memory: llama.cpp's account once loaded, the estimate until then. */
    public get memory(): MemoryFootprint {
        const measured = this.facts?.memory;
        return measured != null && totalBytes(measured) > 0 ? measured : this.estimate;
    }

    public get measured(): boolean {
        return this.memory !== this.estimate;
    }

    /** What it holds in memory, in bytes (placement's view: memoryPlacement.ts). */
    public get bytes(): number {
        return totalBytes(this.memory);
    }

    /** Loaded and serving, not being freed: the only state in which it may be chosen to go. */
    public get loaded(): boolean {
        return this.state === "loaded" && this.disposal == null;
    }

    public get idle(): boolean {
        return this.holds === 0;
    }

    /** Never unloaded to make room (a keep-alive of -1). */
    public get pinned(): boolean {
        return this.keepAlive === "forever";
    }

    /** It loaded: what /v1/models will say of it from now on. */
    public markLoaded(model: LoadedModel): void {
        this.model = model;
        this.facts = {
            contextLength: model.contextLength, supportsInfill: model.supportsInfill,
            contextMemoryBytes: model.contextMemoryBytes, memory: model.memory, imageInputRefusal: model.imageInputRefusal,
            draftRefusal: model.draftRefusal ?? null
        };
        this.state = "loaded";
    }

    /** Memory was granted: the load starts. */
    public start(load: () => Promise<LoadedModel>): void {
        this.state = "loading";
        this.settleReady.resolve(load());
    }

    /** Given up before it got memory: its requests hear `error`. */
    public cancel(error: unknown): void {
        if (this.state === "waiting")
            this.settleReady.reject(error);
    }

    /** A request holds it: no keep-alive runs until the last one lets go. */
    public hold(keepAlive: KeepAlive | null): void {
        this.holds++;
        this.keepAlive = keepAlive;
        this.clearExpiry();
    }

    /** A request let go; true when it was the last. */
    public release(): boolean {
        this.holds--;
        this.lastUsed = nextUse();
        return this.holds === 0;
    }

    /** Runs `expire` after `ms` unless a request holds it again first. */
    public scheduleExpiry(ms: number, expire: () => void): void {
        this.clearExpiry();
        this.expiresAtMs = Date.now() + ms;
        this.timer = setTimeout(() => {
            this.timer = null;
            this.expiresAtMs = null;
            expire();
        }, ms);
        // A keep-alive never holds the process open (shutdown frees every model anyway).
        this.timer.unref();
    }

    public clearExpiry(): void {
        if (this.timer != null)
            clearTimeout(this.timer);
        this.timer = null;
        this.expiresAtMs = null;
    }
}

let uses = 0;

function nextUse(): number {
    return ++uses;
}
