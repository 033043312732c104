import {setMaxListeners} from "node:events";
import type {Logger} from "pino";
import type {LoadedModel} from "../engine/types.js";
import {BadRequestError, type ApiError, ModelNotFoundError, ModelUnavailableError, ModelUnloadedError, ServiceShuttingDownError} from "../errors.js";
import type {ModelCapability, ModelObject} from "../protocol/models.js";
import {planContext, type ContextPlan, type ContextSettings} from "./contextPlan.js";
import {ModelAliases} from "./modelAliases.js";
import type {Catalogue} from "./modelCatalogue.js";
import type {ModelDescriptor} from "./modelDescriptor.js";
import {aliasObject, danglingAliasObject, modelObject} from "./modelListing.js";

/** Loads a model with the context the plan decided (the same plan /v1/models reports). */
export type ModelLoader = (descriptor: ModelDescriptor, plan: ContextPlan) => Promise<LoadedModel>;

export type RegistrySettings = {
    /** --ctx-size, --parallel and the memory the defaults are sized to. */
    context: ContextSettings,
    /** --model-alias: other names for the models. */
    aliases?: ModelAliases
};

/** What the services need of the registry: a loaded model that can serve a capability. */
export type ModelSource = Pick<ModelRegistry, "acquire">;

type Residency = {
    descriptor: ModelDescriptor,
    loading: Promise<LoadedModel>,
    model?: LoadedModel,
    error?: string
};

/**
 * Which models are loaded. A model loads on its first request and stays loaded; requests that
 * arrive while it loads wait for the same load. A failed load marks the model unavailable with
 * the reason (until its file changes) instead of failing every request in a new way. Every
 * endpoint finds its model here, by the model's id or by an alias of it.
 */
export class ModelRegistry {
    private readonly residents = new Map<string, Residency>();
    /** Models no longer served whose weights are still being freed: shutdown waits for them too. */
    private readonly retiring = new Set<Promise<void>>();
    /** Aborted when shutdown begins: requests still waiting for a model then get their 503. */
    private readonly stopping = new AbortController();
    /** Each file's plan, decided once: the descriptor is replaced when the file changes. */
    private readonly plans = new WeakMap<ModelDescriptor, ContextPlan>();
    private readonly aliases: ModelAliases;

    public constructor(
        private readonly catalogue: Catalogue,
        private readonly load: ModelLoader,
        private readonly settings: RegistrySettings,
        private readonly logger: Logger
    ) {
        this.aliases = settings.aliases ?? new ModelAliases();
        // Every request waiting for a model to load listens for shutdown: more than 10 is no leak.
        setMaxListeners(0, this.stopping.signal);
    }

    /** The folder's models, then each exact alias as an entry of its own (patterns show on the models they lead to). */
    public list(): ModelObject[] {
        const models = this.catalogue.list().map((descriptor) => this.toModelObject(descriptor));
        const aliases = this.aliases.exactAliases()
            .filter(({name}) => this.catalogue.find(name) == null)
            .map(({name, model}) => {
                const target = models.find((entry) => entry.id === model);
                return target == null ? danglingAliasObject(name, model) : aliasObject(name, target);
            });
        return [...models, ...aliases];
    }

    /** One entry by the name a client uses: a model's id, or an alias (or a name a pattern covers) as an entry of its own. */
    public async describe(name: string): Promise<ModelObject> {
        const descriptor = await this.find(name);
        const entry = this.toModelObject(descriptor);
        return descriptor.id === name ? entry : aliasObject(name, entry);
    }

    /**
     * The loaded model `name` stands for (its id, or an alias of it), loading it first if needed;
     * 404 for an unknown name, 400 for a model that cannot serve `capability`.
     */
    public async acquire(name: string, capability: ModelCapability): Promise<LoadedModel> {
        const descriptor = await this.find(name);
        // Not before: finding a file copied in a moment ago waits for a rescan, and shutdown may begin meanwhile.
        this.stopping.signal.throwIfAborted();
        if (descriptor.error != null)
            throw new ModelUnavailableError(descriptor.id, descriptor.error);
        if (!descriptor.capabilities.includes(capability)) {
            const shown = descriptor.id === name ? `'${name}'` : `'${name}' (an alias of '${descriptor.id}')`;
            throw new BadRequestError(`The model ${shown} does not support ${capability}.`, {param: "model", code: "unsupported_model"});
        }

        // Finding it may have rescanned the folder, and found its file changed since the last rescan's release.
        this.releaseStale();
        let residency = this.residents.get(descriptor.id);
        if (residency == null) {
            residency = this.startLoading(descriptor);
            this.residents.set(descriptor.id, residency);
        }
        return await this.loaded(residency);
    }

    /** What a model is served with: its context per request, its parallel sequences, their KV cache. */
    public planFor(descriptor: ModelDescriptor): ContextPlan {
        let plan = this.plans.get(descriptor);
        if (plan == null) {
            plan = planContext(descriptor, this.settings.context);
            this.plans.set(descriptor, plan);
        }
        return plan;
    }

    /**
     * After a rescan, models whose file has left the folder or changed: requests queued for them learn
     * it now, and their weights (and a deleted file's disk space) go once their running generations
     * end. A changed file's new weights load on the next request for it.
     */
    public releaseStale(): void {
        for (const [id, residency] of this.residents) {
            const current = this.catalogue.find(id);
            if (current === residency.descriptor)
                continue;
            this.residents.delete(id);
            this.retire(residency, current == null ? "its file left the models folder" : "its file changed");
            this.logger.info({event: "model_unloaded", model: id}, `unloading ${id}: its file ${current == null ? "is gone" : "changed"}`);
        }
    }

    /**
     * Shutdown has begun: requests queued for a sequence, or for a model still loading, get their
     * 503 now, not when the grace period ends; so does every request after them.
     */
    public stopQueueing(): void {
        const reason = new ServiceShuttingDownError();
        this.stopping.abort(reason);
        for (const residency of this.residents.values())
            residency.model?.stopQueueing(reason);
    }

    /**
     * Frees every model: those still loading once they have loaded (llama.cpp must outlive a load it
     * is running), and those already retired once their generations end (llama.cpp must outlive a
     * batch it is decoding).
     */
    public async dispose(): Promise<void> {
        const loads = [...this.residents.values()].map((residency) => residency.loading.catch(() => null));
        this.residents.clear();
        const models = (await Promise.all(loads)).filter((model) => model != null);
        await Promise.all([...models.map((model) => model.dispose()), ...this.retiring]);
    }

    /** The residency's model once loaded; its load's failure as a 503 with the reason; shutdown's 503 as soon as it begins. */
    private async loaded(residency: Residency): Promise<LoadedModel> {
        const {signal} = this.stopping;
        let onStop = () => {};
        const stopped = new Promise<never>((_resolve, reject) => {
            onStop = () => reject(signal.reason);
            signal.addEventListener("abort", onStop, {once: true});
        });
        const loading = residency.loading.catch(async () => {
            throw await this.loadFailure(residency);
        });
        try {
            return await Promise.race([loading, stopped]);
        } finally {
            signal.removeEventListener("abort", onStop);
        }
    }

    /**
     * Why a load failed, as its requests hear it. A file that left or changed in the folder while it
     * loaded (llama.cpp could not open it) is the folder's change: 503, and a retry finds what the
     * folder holds now. Anything else is the file's own fault: 400, and /v1/models lists it unavailable.
     */
    private async loadFailure({descriptor, error}: Residency): Promise<ApiError> {
        await this.catalogue.refresh().catch(() => undefined);
        if (this.catalogue.find(descriptor.id) !== descriptor)
            return new ModelUnloadedError(descriptor.id, "its file left or changed in the models folder while it loaded");
        return new ModelUnavailableError(descriptor.id, error ?? "it failed to load");
    }

    /**
     * A model no longer served: requests waiting for it get a 503 that says why (a retry finds the
     * folder's current file), and its weights go once its running generations end (or never came, if
     * its load fails).
     */
    private retire(residency: Residency, why: string): void {
        const id = residency.descriptor.id;
        const retired: Promise<void> = residency.loading.then((model) => {
            model.stopQueueing(new ModelUnloadedError(id, why));
            return model.dispose();
        }, () => {}).catch((error: unknown) => {
            this.logger.error({event: "model_unload_failed", model: id, err: error}, `failed to unload ${id}`);
        }).finally(() => this.retiring.delete(retired));
        this.retiring.add(retired);
    }

    /**
     * The model a name stands for: a model of that id, else the model of an exact alias, else of
     * the most specific pattern. A name that is none of these, or an alias whose model is not
     * there, rescans the folder first (a file copied in a moment ago should not have to wait for
     * the next periodic scan); a scan that fails (out of file handles) leaves what is known.
     */
    private async find(name: string): Promise<ModelDescriptor> {
        const lookUp = () => {
            const target = this.aliases.resolve(name);
            return this.catalogue.find(name) ?? (target == null ? undefined : this.catalogue.find(target));
        };
        let descriptor = lookUp();
        if (descriptor == null) {
            await this.catalogue.refresh().catch(() => undefined);
            descriptor = lookUp();
        }
        if (descriptor == null)
            throw new ModelNotFoundError(name, this.aliases.resolve(name));
        return descriptor;
    }

    private startLoading(descriptor: ModelDescriptor): Residency {
        const started = Date.now();
        this.logger.info({event: "model_loading", model: descriptor.id}, `loading ${descriptor.id}`);
        const plan = this.planFor(descriptor);
        const residency: Residency = {descriptor, loading: this.load(descriptor, plan)};
        residency.loading.then((model) => {
            residency.model = model;
            this.logger.info({
                event: "model_loaded", model: descriptor.id, contextLength: model.contextLength, parallel: plan.parallel,
                kvCacheBytes: plan.kvCacheBytes, contextMemoryBytes: model.contextMemoryBytes, ms: Date.now() - started
            }, `loaded ${descriptor.id} (${model.contextLength} tokens per request, ${plan.parallel} at once) in ${Date.now() - started} ms`);
        }, (error: unknown) => {
            residency.error = error instanceof Error ? error.message : String(error);
            this.logger.error({event: "model_load_failed", model: descriptor.id, err: error}, `failed to load ${descriptor.id}`);
        });
        return residency;
    }

    private toModelObject(descriptor: ModelDescriptor): ModelObject {
        const residency = this.residents.get(descriptor.id);
        const current = residency?.descriptor === descriptor ? residency : undefined;
        return modelObject(descriptor, this.planFor(descriptor), current, this.aliases.namesFor(descriptor.id));
    }
}
