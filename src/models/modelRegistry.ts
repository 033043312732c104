import {setMaxListeners} from "node:events";
import type {Logger} from "pino";
import type {LoadedModel} from "../engine/types.js";
import {BadRequestError, type ApiError, ModelNotFoundError, ModelUnavailableError, ModelUnloadedError, ServiceShuttingDownError} from "../errors.js";
import type {ModelCapability, ModelObject} from "../protocol/models.js";
import type {Catalogue} from "./modelCatalogue.js";
import type {ModelDescriptor} from "./modelDescriptor.js";

export type ModelLoader = (descriptor: ModelDescriptor) => Promise<LoadedModel>;

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
 * the reason (until its file changes) instead of failing every request in a new way.
 */
export class ModelRegistry {
    private readonly residents = new Map<string, Residency>();
    /** Models no longer served whose weights are still being freed: shutdown waits for them too. */
    private readonly retiring = new Set<Promise<void>>();
    /** Aborted when shutdown begins: requests still waiting for a model then get their 503. */
    private readonly stopping = new AbortController();

    public constructor(
        private readonly catalogue: Catalogue,
        private readonly load: ModelLoader,
        private readonly contextSize: number,
        private readonly logger: Logger
    ) {
        // Every request waiting for a model to load listens for shutdown: more than 10 is no leak.
        setMaxListeners(0, this.stopping.signal);
    }

    public list(): ModelObject[] {
        return this.catalogue.list().map((descriptor) => this.toModelObject(descriptor));
    }

    public async describe(id: string): Promise<ModelObject> {
        return this.toModelObject(await this.find(id));
    }

    /** The loaded model, loading it first if needed; 404 for an unknown id, 400 for one that cannot serve `capability`. */
    public async acquire(id: string, capability: ModelCapability): Promise<LoadedModel> {
        const descriptor = await this.find(id);
        // Not before: finding a file copied in a moment ago waits for a rescan, and shutdown may begin meanwhile.
        this.stopping.signal.throwIfAborted();
        if (descriptor.error != null)
            throw new ModelUnavailableError(id, descriptor.error);
        if (!descriptor.capabilities.includes(capability))
            throw new BadRequestError(`The model '${id}' does not support ${capability}.`, {param: "model", code: "unsupported_model"});

        // Finding it may have rescanned the folder, and found its file changed since the last rescan's release.
        this.releaseStale();
        let residency = this.residents.get(id);
        if (residency == null) {
            residency = this.startLoading(descriptor);
            this.residents.set(id, residency);
        }
        return await this.loaded(residency);
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

    private async find(id: string): Promise<ModelDescriptor> {
        let descriptor = this.catalogue.find(id);
        if (descriptor == null) {
            // A file copied in a moment ago should not have to wait for the next periodic scan. A scan
            // that fails (out of file handles) leaves what is known: the answer is then a 404.
            await this.catalogue.refresh().catch(() => undefined);
            descriptor = this.catalogue.find(id);
        }
        if (descriptor == null)
            throw new ModelNotFoundError(id);
        return descriptor;
    }

    private startLoading(descriptor: ModelDescriptor): Residency {
        const started = Date.now();
        this.logger.info({event: "model_loading", model: descriptor.id}, `loading ${descriptor.id}`);
        const residency: Residency = {descriptor, loading: this.load(descriptor)};
        residency.loading.then((model) => {
            residency.model = model;
            this.logger.info({event: "model_loaded", model: descriptor.id, contextLength: model.contextLength, ms: Date.now() - started},
                `loaded ${descriptor.id} (${model.contextLength} tokens per request) in ${Date.now() - started} ms`);
        }, (error: unknown) => {
            residency.error = error instanceof Error ? error.message : String(error);
            this.logger.error({event: "model_load_failed", model: descriptor.id, err: error}, `failed to load ${descriptor.id}`);
        });
        return residency;
    }

    private toModelObject(descriptor: ModelDescriptor): ModelObject {
        const residency = this.residents.get(descriptor.id);
        const current = residency?.descriptor === descriptor ? residency : undefined;
        const error = descriptor.error ?? current?.error;
        const status = error != null ? "unavailable"
            : current?.model != null ? "loaded"
                : current != null ? "loading"
                    : "available";
        const trained = descriptor.trainedContextLength;
        return {
            id: descriptor.id,
            object: "model",
            created: descriptor.modifiedAt,
            owned_by: "chatserve",
            context_length: current?.model?.contextLength ?? (trained == null ? this.contextSize : Math.min(trained, this.contextSize)),
            capabilities: current?.model == null ? descriptor.capabilities : withInfill(descriptor.capabilities, current.model.supportsInfill),
            status,
            loaded: status === "loaded",
            architecture: descriptor.architecture,
            size_bytes: descriptor.sizeBytes,
            ...(error != null ? {error} : {})
        };
    }
}

/** A loaded model knows whether it can fill in the middle (llama.cpp may find the tokens by their text). */
function withInfill(capabilities: ModelCapability[], supportsInfill: boolean): ModelCapability[] {
    const others = capabilities.filter((capability) => capability !== "fim");
    return supportsInfill ? [...others, "fim"] : others;
}
