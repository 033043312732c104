import type {Logger} from "pino";
import type {LoadedModel} from "../engine/loadedModel.js";
import {ModelUnloadedError, type ApiError} from "../errors.js";
import type {ModelDescriptor} from "./modelDescriptor.js";
import type {ModelLifecycleObserver} from "./registrySettings.js";
import type {Residency} from "./residency.js";
import {ResidencyDisposal} from "./residencyDisposal.js";
import {freeAllAtShutdown, shutdownLoadWaitMs, stopQueueingAll} from "./residencyShutdown.js";
import {TransitionSignal} from "./transitionSignal.js";

/**
 * The book of every model's residency (residency.ts): which one serves each model id, which wait
 * for room (in order), which hold memory (loading, loaded, or being freed: they count against the
 * budget until their memory is free), and the moves between: start a load, a request letting go,
 * keep-alive, unloading (now if idle, else once the last request lets go), retiring a changed file.
 * After every move it calls `onChange` (loadQueue.ts's pump) and wakes whoever waits for one
 * (transitionSignal.ts); residencyDisposal.ts frees the models it lets go, residencyShutdown.ts all
 * of them at shutdown.
 */
export class ResidencyLedger {
    private readonly byId = new Map<string, Residency>();
    private readonly queue: Residency[] = [];
    private readonly claims = new Set<Residency>();
    private readonly transitions: TransitionSignal;
    private readonly disposals: ResidencyDisposal;
    private closed = false;

    public constructor(
        private readonly logger: Logger,
        onChange: () => void,
        private readonly lifecycle?: ModelLifecycleObserver
    ) {
        this.transitions = new TransitionSignal(onChange, () => this.closed);
        this.disposals = new ResidencyDisposal(logger, (residency) => this.freed(residency), lifecycle);
    }

    /** The residency serving this very file (not an older one of the same id). */
    public current(descriptor: ModelDescriptor): Residency | undefined {
        const residency = this.byId.get(descriptor.id);
        return residency?.descriptor === descriptor ? residency : undefined;
    }

    public all(): Residency[] {
        return [...this.byId.values()];
    }

    /** Waiting for room, first come first. */
    public waiting(): Residency[] {
        return [...this.queue];
    }

    /** Those holding memory now. */
    public occupants(): Residency[] {
        return [...this.claims];
    }

    /** Resolves at the next transition. */
    public changed(): Promise<void> {
        return this.transitions.changed();
    }

    /** A new residency for its model, waiting for room. */
    public add(residency: Residency): void {
        this.byId.set(residency.id, residency);
        this.queue.push(residency);
        this.transitions.notify();
    }

    /** It got its memory: the load starts. */
    public start(residency: Residency, load: () => Promise<LoadedModel>): void {
        this.queue.splice(this.queue.indexOf(residency), 1);
        this.claims.add(residency);
        const started = performance.now();
        const seconds = () => (performance.now() - started) / 1000;
        residency.start(load);
        this.stopMakingRoomFor(residency);
        residency.ready.then((model) => {
            this.lifecycle?.loaded(residency.id, seconds());
            residency.markLoaded(model);
            if (residency.idle)
                this.becameIdle(residency);
            this.transitions.notify();
        }, (error: unknown) => {
            this.lifecycle?.loadFailed(residency.id, seconds());
            residency.error = error instanceof Error ? error.message : String(error);
            residency.state = "failed";
            this.claims.delete(residency);
            this.transitions.notify();
        });
    }

    /** A request let go of it. */
    public release(residency: Residency): void {
        if (!residency.release())
            return;
        if (residency.state === "waiting") {
            // Every request waiting for it gave up: it never got memory, and no longer wants it.
            this.queue.splice(this.queue.indexOf(residency), 1);
            if (this.byId.get(residency.id) === residency)
                this.byId.delete(residency.id);
            residency.cancel(new Error("no request waits for it"));
            this.stopMakingRoomFor(residency);
            this.transitions.notify();
        } else if (residency.state === "loaded")
            this.becameIdle(residency);
    }

    /**
     * Marks it to go: unloaded now if idle, else as soon as its last request lets go; requests that
     * come meanwhile wait for it to go. `forWhom`: the load it makes room for (null: asked for, or keep-alive).
     */
    public drain(residency: Residency, forWhom: Residency | null, why: string): void {
        if (residency.disposal != null)
            return;
        if (!residency.unloading) {
            residency.unloading = true;
            residency.makingRoomFor = forWhom;
            residency.clearExpiry();
            if (!residency.idle)
                this.logger.info({event: "model_unloading", model: residency.id, requests: residency.holds, why},
                    `unloading ${residency.id} ${why}, once its ${residency.holds} running or queued requests end`);
        } else if (forWhom == null)
            // Asked for now: it goes even if the load it was making room for no longer needs it.
            residency.makingRoomFor = null;
        if (residency.idle && residency.state === "loaded")
            this.disposals.free(residency, residency.model!, why);
        this.transitions.notify();
    }

    /** Its file left or changed: requests queued for it get a 503 now; its memory goes once running ones end. */
    public retire(residency: Residency, why: string): void {
        if (this.byId.get(residency.id) === residency)
            this.byId.delete(residency.id);
        residency.unloading = true;
        residency.clearExpiry();
        if (residency.state === "waiting") {
            this.queue.splice(this.queue.indexOf(residency), 1);
            residency.cancel(new ModelUnloadedError(residency.id, why));
            this.stopMakingRoomFor(residency);
        } else if (residency.state !== "failed" && residency.disposal == null)
            this.disposals.retire(residency, why);
        this.transitions.notify();
    }

    /** Shutdown: requests waiting for room, for a sequence, or to prepare a prompt fail with `reason`; no keep-alive fires. */
    public stopQueueing(reason: ApiError): void {
        this.closed = true;
        stopQueueingAll(new Set([...this.byId.values(), ...this.claims]), reason);
    }

    /**
     * Frees every model once its load has ended (residencyShutdown.ts); a load still running after
     * `loadWaitMs` is left to run, and the count of those is returned: llama.cpp must then not be
     * disposed under them (server.ts).
     */
    public async dispose(loadWaitMs = shutdownLoadWaitMs): Promise<{loadsLeftRunning: number}> {
        this.closed = true;
        const everyone = new Set([...this.byId.values(), ...this.claims]);
        this.byId.clear();
        this.queue.splice(0);
        return await freeAllAtShutdown(everyone, this.disposals, this.logger, loadWaitMs);
    }

    /** The last request let go of a loaded model: it goes now if marked to, else its keep-alive starts. */
    private becameIdle(residency: Residency): void {
        const keepAlive = residency.keepAlive;
        if (this.closed)
            return;
        if (residency.unloading)
            this.drain(residency, residency.makingRoomFor, "now that its requests have ended");
        else if (keepAlive != null && keepAlive !== "forever") {
            const why = `after ${keepAlive.ms / 1000} s idle (its keep-alive)`;
            if (keepAlive.ms === 0)
                this.drain(residency, null, why);
            else
                residency.scheduleExpiry(keepAlive.ms, () => this.drain(residency, null, why));
        }
        this.transitions.notify();
    }

    /** Its memory is free (residencyDisposal.ts): it leaves the book. */
    private freed(residency: Residency): void {
        this.claims.delete(residency);
        if (this.byId.get(residency.id) === residency)
            this.byId.delete(residency.id);
        this.transitions.notify();
    }

    /** A load got its memory, or gave up: the busy models it had asked to go may stay (unless asked to go for another reason). */
    private stopMakingRoomFor(load: Residency): void {
        for (const occupant of this.claims)
            if (occupant.makingRoomFor === load && occupant.disposal == null) {
                occupant.unloading = false;
                occupant.makingRoomFor = null;
                if (occupant.idle && occupant.state === "loaded")
                    this.becameIdle(occupant);
            }
    }
}
