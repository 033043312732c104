import {setMaxListeners} from "node:events";
import type {Logger} from "pino";
import {ModelUnavailableError, ServerBusyError, ServiceShuttingDownError} from "../errors.js";
import {boundedWait, type WaitLimits} from "./boundedWait.js";
import {sameLoadSettings} from "./contextPlan.js";
import type {KeepAlive} from "./keepAlive.js";
import {LoadQueue} from "./loadQueue.js";
import {totalBytes} from "./memoryEstimate.js";
import {insufficientMemoryError, stillUnloadingError, tooLargeError, type BudgetDescription} from "./memoryMessages.js";
import {fitsAlone} from "./memoryPlacement.js";
import type {Catalogue} from "./modelCatalogue.js";
import type {ModelDescriptor} from "./modelDescriptor.js";
import type {ModelSizing} from "./modelSizing.js";
import type {HeldModel, HoldOptions, ModelLifecycleObserver, ModelLoader} from "./registrySettings.js";
import {Residency} from "./residency.js";
import {ResidencyLedger} from "./residencyLedger.js";

/** What the scheduler keeps to: the memory budget, how long a request may wait for room, and for how many. */
export type SchedulingLimits = {
    budget: BudgetDescription,
    /** How long a request waits for room (or for its model to finish unloading) before its 503. */
    waitMs: number,
    /** Requests that may wait for a model to get room and load (--max-queue); undefined: no limit. */
    maxWaiting?: number,
    /** --keep-alive: a model's when neither its request nor chatserve.json names one. */
    keepAlive: KeepAlive | null
};

/**
 * Which models are in memory, and who holds them: a request holds its model from the moment it asks
 * (waiting for room and for the load, shared with the requests that came meanwhile) until it lets
 * go; the loads wait their turn in loadQueue.ts; a model is unloaded when asked, when its settings or
 * its file change, or to make room, and never in the middle of a reply.
 */
export class ModelScheduler {
    private readonly ledger: ResidencyLedger;
    private readonly loads: LoadQueue;
    /** Aborted when shutdown begins: requests still waiting for a model then get their 503. */
    private readonly stopping = new AbortController();

    public constructor(
        private readonly catalogue: Catalogue,
        load: ModelLoader,
        private readonly sizing: ModelSizing,
        private readonly limits: SchedulingLimits,
        lifecycle: ModelLifecycleObserver | undefined,
        private readonly logger: Logger
    ) {
        this.ledger = new ResidencyLedger(logger, () => this.loads.pump(), lifecycle);
        this.loads = new LoadQueue(catalogue, this.ledger, limits.budget, sizing, load, logger, this.stopping.signal);
        // Every request waiting for a model listens for shutdown: more than 10 is no leak.
        setMaxListeners(0, this.stopping.signal);
    }

    /** The residencies as they stand, for the listing to read (modelListing.ts). */
    public get residencies(): Pick<ResidencyLedger, "current" | "all" | "occupants"> {
        return this.ledger;
    }

    /** The model, if it can be served at all: shutdown has not begun, and its file is readable. */
    public servable(descriptor: ModelDescriptor): ModelDescriptor {
        this.stopping.signal.throwIfAborted();
        if (descriptor.error != null)
            throw new ModelUnavailableError(descriptor.id, descriptor.error);
        return descriptor;
    }

    /**
     * Holds the model for a request: the residency it has, or a new one that waits for room. A model
     * being unloaded is waited for (it loads again after). Waiting for room is bounded by `waitMs`.
     */
    public async hold(descriptor: ModelDescriptor, options: HoldOptions): Promise<HeldModel> {
        const started = Date.now();
        const deadline = started + this.limits.waitMs;
        for (;;) {
            this.stopping.signal.throwIfAborted();
            // Finding it may have rescanned the folder, and found its file changed since the last rescan's release.
            this.releaseStale();
            let residency = this.ledger.current(descriptor);
            if (residency?.unloading) {
                const going = residency;
                await this.untilStopped(this.ledger.changed(), {signal: options.signal, deadline, onDeadline: () => stillUnloadingError(going, Date.now() - started)});
                continue;
            }
            residency ??= this.admit(descriptor);
            const {maxWaiting} = this.limits;
            if (residency.state === "waiting" && maxWaiting != null && residency.holds >= maxWaiting + residency.plan.parallel)
                throw new ServerBusyError(1);
            residency.hold(options.keepAlive ?? this.sizing.modelSettings(descriptor.id).keepAlive ?? this.limits.keepAlive);
            const held = residency;
            try {
                const model = await this.untilStopped(this.loads.loaded(held), {signal: options.signal, deadline, onDeadline: () => held.state === "waiting"
                    ? insufficientMemoryError(held, this.ledger.occupants(), this.limits.budget, Date.now() - started)
                    : null});
                let released = false;
                return {model, sampling: this.sizing.modelSettings(descriptor.id).sampling, release: () => {
                    if (!released) {
                        released = true;
                        this.ledger.release(held);
                    }
                }};
            } catch (error) {
                this.ledger.release(held);
                throw error;
            }
        }
    }

    /**
     * Frees the model's memory once its running and queued requests end (never cutting one; requests
     * that come meanwhile wait, then load it again), and resolves when it is gone. A model still
     * loading is unloaded once loaded; one not loaded is left as it is.
     */
    public async unload(descriptor: ModelDescriptor): Promise<void> {
        for (;;) {
            this.stopping.signal.throwIfAborted();
            const residency = this.ledger.current(descriptor);
            if (residency == null || residency.state === "waiting" || residency.state === "failed")
                return;
            if (residency.state === "loading") {
                await this.untilStopped(residency.ready.catch(() => undefined));
                continue;
            }
            this.ledger.drain(residency, null, "asked by POST /v1/models/{id}/unload");
            await this.untilStopped(residency.disposal ?? this.ledger.changed());
            if (this.ledger.current(descriptor) !== residency)
                return;
        }
    }

    /**
     * The plans were made again (chatserve.json changed): a model whose load-time settings (context,
     * parallel, template, projector) changed is unloaded once idle, never in the middle of a reply;
     * requests that come meanwhile wait, then load it with its new settings.
     */
    public replanned(): void {
        for (const residency of this.ledger.all()) {
            if (sameLoadSettings(residency.plan, this.sizing.planFor(residency.descriptor)))
                continue;
            if (residency.state === "failed")
                // A template that failed to load may be fixed now: the next request tries again.
                this.ledger.retire(residency, "its settings changed");
            else {
                this.logger.info({event: "model_settings_changed", model: residency.id}, `${residency.id}'s settings changed: it reloads once its requests end`);
                this.ledger.drain(residency, null, "its settings changed (it loads again with them on its next request)");
            }
        }
    }

    /**
     * After a rescan, models whose file has left the folder or changed: requests queued for them learn
     * it now, and their weights (and a deleted file's disk space) go once their running generations
     * end. A changed file's new weights load on the next request for it.
     */
    public releaseStale(): void {
        for (const residency of this.ledger.all()) {
            const current = this.catalogue.find(residency.id);
            if (current === residency.descriptor)
                continue;
            this.ledger.retire(residency, current == null ? "its file left the models folder" : "its file changed");
            this.logger.info({event: "model_unloaded", model: residency.id}, `unloading ${residency.id}: its file ${current == null ? "is gone" : "changed"}`);
        }
    }

    /** Shutdown has begun: every request waiting for room, a load or a sequence gets its 503 now, and so does every later one. */
    public stopQueueing(): void {
        const reason = new ServiceShuttingDownError();
        this.stopping.abort(reason);
        this.ledger.stopQueueing(reason);
    }

    /** Frees every model, once its load (and any batch it is decoding) has ended: llama.cpp must outlive both; a load running past `loadWaitMs` is left (counted). */
    public async dispose(loadWaitMs?: number): Promise<{loadsLeftRunning: number}> {
        return await this.ledger.dispose(loadWaitMs);
    }

    /** A new residency for the model, waiting for room; refused at once when the model cannot fit even alone. */
    private admit(descriptor: ModelDescriptor): Residency {
        const residency = new Residency(descriptor, this.sizing.planFor(descriptor), this.sizing.estimateFor(descriptor));
        if (!fitsAlone(totalBytes(residency.estimate), this.limits.budget))
            throw tooLargeError(descriptor.id, residency.plan, residency.estimate, this.limits.budget);
        this.ledger.add(residency);
        return residency;
    }

    /** Waits for `work`, but not past shutdown's start (its 503), nor past the request's own end or deadline (see boundedWait). */
    private async untilStopped<T>(work: Promise<T>, {signal, ...limits}: {signal?: AbortSignal} & Omit<WaitLimits, "signals"> = {}): Promise<T> {
        return await boundedWait(work, {signals: [this.stopping.signal, ...(signal == null ? [] : [signal])], ...limits});
    }
}
