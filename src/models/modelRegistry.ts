import type {Logger} from "pino";
import {BadRequestError} from "../errors.js";
import type {ListedModel} from "./listedModel.js";
import {ModelAliases} from "./modelAliases.js";
import type {Catalogue} from "./modelCatalogue.js";
import type {ModelCapability, ModelDescriptor} from "./modelDescriptor.js";
import {ModelListing} from "./modelListing.js";
import {ModelLookup} from "./modelLookup.js";
import type {ModelOccupancy} from "./modelOccupancy.js";
import {ModelScheduler} from "./modelScheduler.js";
import {ModelSizing} from "./modelSizing.js";
import {withCheckedProjector} from "./projectorCheck.js";
import type {HeldModel, HoldOptions, ModelLoader, RegistrySettings} from "./registrySettings.js";
import type {LoadedSettings} from "./settingsFile.js";

export type {HeldModel, HoldOptions, MemorySettings, ModelLifecycleObserver, ModelLoader, RegistrySettings} from "./registrySettings.js";

/** What the services need of the registry: a loaded model that can serve a capability. */
export type ModelSource = Pick<ModelRegistry, "acquire">;

export const defaultMemoryWaitMs = 120_000;

/**
 * The one door to the models: every endpoint finds its model here, by the model's id or by an
 * alias of it, and holds it for one request with `acquire`. Behind the door, three parts that do
 * not mix: which model a name stands for (modelLookup.ts), which models are in memory and who holds
 * them (modelScheduler.ts: a model loads on its first request if the memory budget has room, idle
 * ones make room, a request waits for busy ones up to a timeout), and what the server says of them
 * (modelListing.ts). Each file's plan and memory figure (modelSizing.ts) serves all three.
 */
export class ModelRegistry {
    private readonly lookup: ModelLookup;
    private readonly sizing: ModelSizing;
    private readonly scheduler: ModelScheduler;
    private readonly listing: ModelListing;

    public constructor(private readonly catalogue: Catalogue, load: ModelLoader, settings: RegistrySettings, logger: Logger) {
        this.lookup = new ModelLookup(catalogue, settings.aliases ?? new ModelAliases());
        // A draft model is sized from its header where the folder lists it (models/modelSizing.ts).
        this.sizing = new ModelSizing(settings.context, () => catalogue.list());
        const memory = settings.memory ?? {};
        const budget = {bytes: memory.bytes ?? Number.POSITIVE_INFINITY, models: memory.models ?? Number.POSITIVE_INFINITY, source: memory.source ?? "--memory-limit"};
        const keepAlive = memory.keepAlive ?? null;
        this.scheduler = new ModelScheduler(catalogue, withCheckedProjector(load), this.sizing, {
            budget, keepAlive, waitMs: memory.waitMs ?? defaultMemoryWaitMs, maxWaiting: memory.maxWaiting
        }, settings.lifecycle, logger);
        this.listing = new ModelListing(catalogue, this.lookup, this.sizing, this.scheduler.residencies, budget, keepAlive, settings.promptCacheUsage);
    }

    /**
     * The loaded model `name` stands for (its id, or an alias of it), held for one request until
     * `release()`; loads it first if needed (making room, or waiting for it). 404 for an unknown
     * name, 400 for a model that cannot serve `capability` or can never fit the budget. `capability`
     * null: whatever the model serves (/tokenize reads any model's vocabulary).
     */
    public async acquire(name: string, capability: ModelCapability | null, options: HoldOptions = {}): Promise<HeldModel> {
        const descriptor = await this.servable(name);
        if (capability != null && !descriptor.capabilities.includes(capability)) {
            const shown = descriptor.id === name ? `'${name}'` : `'${name}' (an alias of '${descriptor.id}')`;
            // `model` is the field every API names its model in.
            throw new BadRequestError(`The model ${shown} does not support ${capability}.`, {param: "model", code: "unsupported_model"});
        }
        return await this.scheduler.hold(descriptor, options);
    }

    /** `POST /v1/models/{id}/load`: loads the model (or shares a load under way) and lets it idle under its keep-alive. */
    public async warm(name: string, options: HoldOptions = {}): Promise<ListedModel> {
        const held = await this.scheduler.hold(await this.servable(name), options);
        held.release();
        return await this.describe(name);
    }

    /** `POST /v1/models/{id}/unload`: frees the model's memory once its requests end (modelScheduler.ts), and answers when it is gone. */
    public async unload(name: string): Promise<ListedModel> {
        await this.scheduler.unload(await this.lookup.find(name));
        return await this.describe(name);
    }

    /** The folder's models, then each exact alias as an entry of its own. */
    public list(): ListedModel[] {
        return this.listing.list();
    }

    /** One entry by the name a client uses: a model's id, or an alias as an entry of its own. */
    public async describe(name: string): Promise<ListedModel> {
        return await this.listing.describe(name);
    }

    /** The id of the model `name` stands for, as far as is known now (no rescan): metrics label a request by it, never by an alias. */
    public idOf(name: string): string | undefined {
        return this.lookup.lookUp(name)?.id;
    }

    /** Each model holding or awaiting memory now (metrics' gauges, read at a scrape). */
    public occupancy(): ModelOccupancy[] {
        return this.listing.occupancy();
    }

    /**
     * chatserve.json changed: the file's aliases join --model-alias's (a conflict throws, and the
     * settings in force stay), plans and estimates are made again, and a model whose load-time
     * settings changed reloads once idle. Sampling and keep-alive apply to the next request.
     */
    public applySettings(settings: LoadedSettings): void {
        this.lookup.useSettings(settings);
        this.sizing.useSettings(settings);
        this.scheduler.replanned();
    }

    /** Rescans the models folder now, not at the next periodic scan (Ollama's /api/pull and /api/delete changed it), and lets stale models go. */
    public async rescan(): Promise<void> {
        await this.catalogue.refresh();
        this.scheduler.releaseStale();
    }

    /** After a rescan: models whose file left the folder or changed go once their running requests end. */
    public releaseStale(): void {
        this.scheduler.releaseStale();
    }

    /** Shutdown has begun: requests waiting for a model or a sequence get their 503 now, not when the grace period ends. */
    public stopQueueing(): void {
        this.scheduler.stopQueueing();
    }

    /** Frees every model, once its load (and any batch it is decoding) has ended: llama.cpp must outlive both; a load running past `loadWaitMs` is left (counted). */
    public async dispose(loadWaitMs?: number): Promise<{loadsLeftRunning: number}> {
        return await this.scheduler.dispose(loadWaitMs);
    }

    /** The model `name` stands for, if it can be served at all. Not checked before finding it: a rescan may wait, and shutdown begin meanwhile. */
    private async servable(name: string): Promise<ModelDescriptor> {
        return this.scheduler.servable(await this.lookup.find(name));
    }
}
