import {setMaxListeners} from "node:events";
import type {Logger} from "pino";
import type {LoadedModel} from "../engine/types.js";
import {
    BadRequestError, type ApiError, ModelNotFoundError, ModelUnavailableError, ModelUnloadedError, ServerBusyError, ServiceShuttingDownError
} from "../errors.js";
import type {ModelCapability, ModelObject} from "../api/models/models.js";
import {boundedWait, type WaitLimits} from "./boundedWait.js";
import {formatBytes} from "./byteSize.js";
import {totalBytes} from "./memoryEstimate.js";
import {insufficientMemoryError, stillUnloadingError, tooLargeError, type BudgetDescription} from "./memoryMessages.js";
import {fitsAlone, overBudget, placeModel} from "./memoryPlacement.js";
import {ModelAliases} from "./modelAliases.js";
import type {Catalogue} from "./modelCatalogue.js";
import type {ModelDescriptor} from "./modelDescriptor.js";
import {aliasObject, danglingAliasObject, modelObject} from "./modelListing.js";
import {ModelSizing} from "./modelSizing.js";
import {sameLoadSettings} from "./contextPlan.js";
import {occupancyOf, type ModelOccupancy} from "./modelOccupancy.js";
import {Residency} from "./residency.js";
import {Residents} from "./residents.js";
import type {HeldModel, HoldOptions, ModelLoader, RegistrySettings} from "./registrySettings.js";
import type {LoadedSettings} from "./settingsFile.js";

export type {HeldModel, HoldOptions, MemorySettings, ModelLifecycleObserver, ModelLoader, RegistrySettings} from "./registrySettings.js";

/** What the services need of the registry: a loaded model that can serve a capability. */
export type ModelSource = Pick<ModelRegistry, "acquire">;

export const defaultMemoryWaitMs = 120_000;

/**
 * Which models are loaded, decided by memory. A model loads on its first request (or on
 * `load()`), if the memory budget has room for what node-llama-cpp estimates it takes; if not, idle
 * models are unloaded (least recently used first), and when only busy ones hold the memory they are
 * unloaded as soon as their requests end, while the request waits (up to a timeout, then 503
 * insufficient_memory). A model with running or queued requests is never unloaded; one too big
 * for the budget alone is refused at once (400). An idle model goes when its keep-alive ends.
 * Requests that arrive while a model loads share the load. A failed load marks the model
 * unavailable with the reason (until its file changes). Every endpoint finds its model here, by
 * the model's id or by an alias of it.
 */
export class ModelRegistry {
    private readonly residents: Residents;
    /** Aborted when shutdown begins: requests still waiting for a model then get their 503. */
    private readonly stopping = new AbortController();
    /** Each file's plan and memory figure. */
    private readonly sizing: ModelSizing;
    /** --model-alias's, then chatserve.json's. */
    private aliases: ModelAliases;
    private readonly budget: BudgetDescription;
    private readonly waitMs: number;

    public constructor(
        private readonly catalogue: Catalogue,
        private readonly load: ModelLoader,
        private readonly settings: RegistrySettings,
        private readonly logger: Logger
    ) {
        this.aliases = settings.aliases ?? new ModelAliases();
        this.sizing = new ModelSizing(settings.context);
        const memory = settings.memory ?? {};
        this.budget = {bytes: memory.bytes ?? Number.POSITIVE_INFINITY, models: memory.models ?? Number.POSITIVE_INFINITY, source: memory.source ?? "--memory-limit"};
        this.waitMs = memory.waitMs ?? defaultMemoryWaitMs;
        this.residents = new Residents(logger, () => this.pump(), settings.lifecycle);
        // Every request waiting for a model listens for shutdown: more than 10 is no leak.
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

    /** The id of the model `name` stands for, as far as is known now (no rescan): metrics label a request by it, never by an alias. */
    public idOf(name: string): string | undefined {
        return this.lookUp(name)?.id;
    }

    /** Each model holding or awaiting memory now (metrics' gauges, read at a scrape). */
    public occupancy(): ModelOccupancy[] {
        return occupancyOf([...this.residents.all(), ...this.residents.occupants()]);
    }

    /**
     * The loaded model `name` stands for (its id, or an alias of it), held for one request until
     * `release()`; loads it first if needed (making room, or waiting for it). 404 for an unknown
     * name, 400 for a model that cannot serve `capability` or can never fit the budget.
     */
    public async acquire(name: string, capability: ModelCapability, options: HoldOptions = {}): Promise<HeldModel> {
        const descriptor = await this.usable(name);
        if (!descriptor.capabilities.includes(capability)) {
            const shown = descriptor.id === name ? `'${name}'` : `'${name}' (an alias of '${descriptor.id}')`;
            throw new BadRequestError(`The model ${shown} does not support ${capability}.`, {param: "model", code: "unsupported_model"});
        }
        return await this.hold(descriptor, options);
    }

    /** `POST /v1/models/{id}/load`: loads the model (or shares a load under way) and lets it idle under its keep-alive. */
    public async warm(name: string, options: HoldOptions = {}): Promise<ModelObject> {
        const held = await this.hold(await this.usable(name), options);
        held.release();
        return await this.describe(name);
    }

    /**
     * `POST /v1/models/{id}/unload`: frees the model's memory once its running and queued requests
     * end (never cutting one; requests that come meanwhile wait, then load it again), and answers
     * when it is gone. A model still loading is unloaded once loaded; one not loaded is left as it is.
     */
    public async unload(name: string): Promise<ModelObject> {
        const descriptor = await this.find(name);
        for (;;) {
            this.stopping.signal.throwIfAborted();
            const residency = this.residents.current(descriptor);
            if (residency == null || residency.state === "waiting" || residency.state === "failed")
                return await this.describe(name);
            if (residency.state === "loading") {
                await this.untilStopped(residency.ready.catch(() => undefined));
                continue;
            }
            this.residents.drain(residency, null, "asked by POST /v1/models/{id}/unload");
            await this.untilStopped(residency.disposal ?? this.residents.changed());
            if (this.residents.current(descriptor) !== residency)
                return await this.describe(name);
        }
    }

    /**
     * chatserve.json changed: plans and estimates are made again, the file's aliases join
     * --model-alias's (a conflict throws, and the settings in force stay), and a model whose
     * load-time settings (context, parallel, template) changed is unloaded once idle, never in the
     * middle of a reply: requests that come meanwhile wait, then load it with its new settings.
     * Sampling and keep-alive apply to the next request without a reload.
     */
    public applySettings(settings: LoadedSettings): void {
        const aliases = new ModelAliases([...(this.settings.aliases ?? new ModelAliases()).all(), ...settings.table.aliases()]);
        this.sizing.useSettings(settings);
        this.aliases = aliases;
        for (const residency of this.residents.all()) {
            const next = this.sizing.planFor(residency.descriptor);
            const {plan} = residency;
            if (sameLoadSettings(plan, next))
                continue;
            if (residency.state === "failed")
                // A template that failed to load may be fixed now: the next request tries again.
                this.residents.retire(residency, "its settings changed");
            else {
                this.logger.info({event: "model_settings_changed", model: residency.id}, `${residency.id}'s settings changed: it reloads once its requests end`);
                this.residents.drain(residency, null, "its settings changed (it loads again with them on its next request)");
            }
        }
    }

    /**
     * After a rescan, models whose file has left the folder or changed: requests queued for them learn
     * it now, and their weights (and a deleted file's disk space) go once their running generations
     * end. A changed file's new weights load on the next request for it.
     */
    public releaseStale(): void {
        for (const residency of this.residents.all()) {
            const current = this.catalogue.find(residency.id);
            if (current === residency.descriptor)
                continue;
            this.residents.retire(residency, current == null ? "its file left the models folder" : "its file changed");
            this.logger.info({event: "model_unloaded", model: residency.id}, `unloading ${residency.id}: its file ${current == null ? "is gone" : "changed"}`);
        }
    }

    /**
     * Shutdown has begun: requests queued for a sequence, or for a model still loading or waiting for
     * room, get their 503 now, not when the grace period ends; so does every request after them.
     */
    public stopQueueing(): void {
        const reason = new ServiceShuttingDownError();
        this.stopping.abort(reason);
        this.residents.stopQueueing(reason);
    }

    /** Frees every model, once its load (and any batch it is decoding) has ended: llama.cpp must outlive both. */
    public async dispose(): Promise<void> {
        await this.residents.dispose();
    }

    /** The model `name` stands for, if it can be served at all (shutdown not begun, file readable). */
    private async usable(name: string): Promise<ModelDescriptor> {
        const descriptor = await this.find(name);
        // Not before: finding a file copied in a moment ago waits for a rescan, and shutdown may begin meanwhile.
        this.stopping.signal.throwIfAborted();
        if (descriptor.error != null)
            throw new ModelUnavailableError(descriptor.id, descriptor.error);
        return descriptor;
    }

    /**
     * Holds the model for a request: the residency it has, or a new one that waits for room. A model
     * being unloaded is waited for (it loads again after). Waiting for room is bounded by `waitMs`.
     */
    private async hold(descriptor: ModelDescriptor, options: HoldOptions): Promise<HeldModel> {
        const started = Date.now();
        const deadline = started + this.waitMs;
        for (;;) {
            this.stopping.signal.throwIfAborted();
            // Finding it may have rescanned the folder, and found its file changed since the last rescan's release.
            this.releaseStale();
            let residency = this.residents.current(descriptor);
            if (residency?.unloading) {
                const going = residency;
                await this.untilStopped(this.residents.changed(), {signal: options.signal, deadline, onDeadline: () => stillUnloadingError(going, Date.now() - started)});
                continue;
            }
            residency ??= this.admit(descriptor);
            const maxWaiting = this.settings.memory?.maxWaiting;
            if (residency.state === "waiting" && maxWaiting != null && residency.holds >= maxWaiting + residency.plan.parallel)
                throw new ServerBusyError(1);
            residency.hold(options.keepAlive ?? this.sizing.modelSettings(descriptor.id).keepAlive ?? this.settings.memory?.keepAlive ?? null);
            const held = residency;
            try {
                const model = await this.untilStopped(this.loaded(held), {signal: options.signal, deadline, onDeadline: () => held.state === "waiting"
                    ? insufficientMemoryError(held, this.residents.occupants(), this.budget, Date.now() - started)
                    : null});
                let released = false;
                return {model, sampling: this.sizing.modelSettings(descriptor.id).sampling, release: () => {
                    if (!released) {
                        released = true;
                        this.residents.release(held);
                    }
                }};
            } catch (error) {
                this.residents.release(held);
                throw error;
            }
        }
    }

    /** A new residency for the model, waiting for room; refused at once when the model cannot fit even alone. */
    private admit(descriptor: ModelDescriptor): Residency {
        const residency = new Residency(descriptor, this.sizing.planFor(descriptor), this.sizing.estimateFor(descriptor));
        if (!fitsAlone(totalBytes(residency.estimate), this.budget))
            throw tooLargeError(descriptor.id, residency.plan, residency.estimate, this.budget);
        this.residents.add(residency);
        return residency;
    }

    /** The residency's model once loaded; its load's failure as a 503 or 400 with the reason. */
    private async loaded(residency: Residency): Promise<LoadedModel> {
        return await residency.ready.catch(async (error: unknown) => {
            if (residency.state !== "failed")
                throw error;
            throw await this.loadFailure(residency);
        });
    }

    /**
     * Unloads idle models while the loaded ones take more than the budget (a load that took more than
     * its estimate), then runs the waiting loads that fit, and makes room for the first that does not:
     * idle models are unloaded now, busy ones once their requests end (see memoryPlacement.ts). A later
     * load may start before an earlier one only within the memory the earlier ones leave.
     */
    private pump(): void {
        if (this.stopping.signal.aborted)
            return;
        for (const occupant of overBudget(this.residents.occupants(), this.budget))
            this.residents.drain(occupant, null, "to bring the loaded models back within the memory budget");
        const reserved = {bytes: 0, models: 0};
        let first = true;
        for (const residency of this.residents.waiting()) {
            const need = totalBytes(residency.estimate);
            const placement = placeModel(need, this.residents.occupants(), this.budget, reserved);
            if (placement.verdict === "fits") {
                this.start(residency);
                continue;
            }
            if (first && placement.verdict === "makeRoom") {
                const why = `to make room for ${residency.id} (${formatBytes(need)})`;
                for (const occupant of [...placement.idle, ...placement.busy])
                    this.residents.drain(occupant, residency, why);
            }
            first = false;
            reserved.bytes += need;
            reserved.models++;
        }
    }

    private start(residency: Residency): void {
        const {descriptor, plan} = residency;
        const started = Date.now();
        this.logger.info({event: "model_loading", model: descriptor.id, estimatedBytes: totalBytes(residency.estimate)}, `loading ${descriptor.id}`);
        this.residents.start(residency, () => this.load(descriptor, plan));
        residency.ready.then((model) => {
            if (residency.measured)
                this.sizing.remember(descriptor, residency.memory);
            this.logger.info({
                event: "model_loaded", model: descriptor.id, contextLength: model.contextLength, parallel: plan.parallel,
                kvCacheBytes: plan.kvCacheBytes, contextMemoryBytes: model.contextMemoryBytes,
                estimatedBytes: totalBytes(residency.estimate), memoryBytes: totalBytes(residency.memory), ms: Date.now() - started
            }, `loaded ${descriptor.id} (${model.contextLength} tokens per request, ${plan.parallel} at once, ${formatBytes(totalBytes(residency.memory))}) in ${Date.now() - started} ms`);
        }, (error: unknown) => {
            this.logger.error({event: "model_load_failed", model: descriptor.id, err: error}, `failed to load ${descriptor.id}`);
        });
    }

    /** Waits for `work`, but not past shutdown's start (its 503), nor past the request's own end or deadline (see boundedWait). */
    private async untilStopped<T>(work: Promise<T>, {signal, ...limits}: {signal?: AbortSignal} & Omit<WaitLimits, "signals"> = {}): Promise<T> {
        return await boundedWait(work, {signals: [this.stopping.signal, ...(signal == null ? [] : [signal])], ...limits});
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
     * The model a name stands for: a model of that id, else the model of an exact alias, else of
     * the most specific pattern. A name that is none of these, or an alias whose model is not
     * there, rescans the folder first (a file copied in a moment ago should not have to wait for
     * the next periodic scan); a scan that fails (out of file handles) leaves what is known.
     */
    private async find(name: string): Promise<ModelDescriptor> {
        let descriptor = this.lookUp(name);
        if (descriptor == null) {
            await this.catalogue.refresh().catch(() => undefined);
            descriptor = this.lookUp(name);
        }
        if (descriptor == null)
            throw new ModelNotFoundError(name, this.aliases.resolve(name));
        return descriptor;
    }

    private lookUp(name: string): ModelDescriptor | undefined {
        const target = this.aliases.resolve(name);
        return this.catalogue.find(name) ?? (target == null ? undefined : this.catalogue.find(target));
    }

    private toModelObject(descriptor: ModelDescriptor): ModelObject {
        const plan = this.sizing.planFor(descriptor);
        const estimate = this.sizing.estimateFor(descriptor);
        const tooLarge = fitsAlone(totalBytes(estimate), this.budget) ? undefined : tooLargeError(descriptor.id, plan, estimate, this.budget).message;
        const residency = this.residents.current(descriptor);
        const view = {residency, estimate, measured: this.sizing.isMeasured(descriptor), tooLarge, keepAlive: this.sizing.modelSettings(descriptor.id).keepAlive ?? this.settings.memory?.keepAlive ?? null};
        return modelObject(descriptor, plan, view, this.aliases.namesFor(descriptor.id));
    }
}
