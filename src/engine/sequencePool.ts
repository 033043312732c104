import {ServerBusyError} from "../errors.js";
import {holdsCacheOf} from "./cachePartitions.js";
import type {CachePartition} from "./generationOptions.js";

/** What the pool needs to know about a sequence to place a prompt on it. */
export type PooledSequence = {readonly contextTokens: readonly number[]};

/** A shared prefix this long, or half the prompt, is worth going to its sequence for. */
const usefulPrefix = 64;

type Waiter<S> = {
    prompt: readonly number[], partition: CachePartition | undefined, adapterSet: string,
    resolve: (sequence: S) => void, reject: (error: unknown) => void
};

/**
 * Hands out a model's sequences, one request each.
 *
 * A request gets the free sequence whose cached tokens share the longest prefix with its prompt,
 * so follow-up turns and repeated system prompts only evaluate what is new. A prefix too short to
 * matter (a chat template's first tokens) does not count: the request then takes the free sequence
 * used least recently, as llama-server picks its slot, instead of overwriting another conversation's
 * cache for a few tokens. Only a sequence holding tokens of the request's own cache partition shares
 * a prefix with it (cachePartitions.ts): another partition's is at most a blank sequence to it. When
 * every sequence is busy, requests wait in a FIFO queue up to `maxQueue`; beyond that they fail fast
 * with 503. A waiter whose client goes away leaves the queue at once.
 *
 * LoRA adapters are set on the whole context (loraScales.ts names each set of scales), so sequences
 * are leased to one adapter set at a time: a request of another set waits, though sequences are
 * free, until the running set's leases are all back. The queue stays first in, first out, so a
 * request of the running set arriving behind it waits too: a busy set cannot starve another.
 */
export class SequencePool<S extends PooledSequence> {
    private readonly free: S[];
    private readonly waiters: Waiter<S>[] = [];
    /** Each leased sequence's request signal: one aborted is about to come back. */
    private readonly holders = new Map<S, AbortSignal>();
    private readonly size: number;
    /** The adapter set of the leased sequences ("" when none is leased or all use the model's own scales). */
    private leasedSet = "";
    private idleListeners: Array<() => void> = [];
    /** Set once the pool takes no more waiters (shutdown): why they are refused. */
    private closedWith: unknown = null;

    public constructor(sequences: readonly S[], private readonly maxQueue: number) {
        this.free = [...sequences];
        this.size = sequences.length;
    }

    public get queued(): number {
        return this.waiters.length;
    }

    /** Sequences leased to a request now. */
    public get leased(): number {
        return this.size - this.free.length;
    }

    /** `adapterSet`: the key of the LoRA scales its generation runs under (loraScales.ts); "" the model's own. */
    public acquire(prompt: readonly number[], signal: AbortSignal, partition?: CachePartition, adapterSet = ""): Promise<S> {
        signal.throwIfAborted();
        if (this.free.length > 0 && this.waiters.length === 0 && this.admits(adapterSet))
            return Promise.resolve(this.lease(this.takeBestFor(prompt, partition), signal, adapterSet));
        if (this.closedWith != null)
            return Promise.reject(this.closedWith);
        // A sequence whose client has gone is as good as free: its generation stops at the next step
        // (a few ms). Counted busy, an IDE's next keystroke right after cancelling one got a 503.
        if (this.waiters.length >= this.maxQueue + this.returning())
            return Promise.reject(new ServerBusyError(1));

        return new Promise<S>((resolve, reject) => {
            const onAbort = () => {
                const index = this.waiters.indexOf(waiter);
                if (index >= 0)
                    this.waiters.splice(index, 1);
                reject(signal.reason);
                // It may have been the head of the queue, holding back requests of the running adapter set.
                this.serveWaiters();
            };
            const waiter: Waiter<S> = {
                prompt,
                partition,
                adapterSet,
                resolve: (sequence) => {
                    signal.removeEventListener("abort", onAbort);
                    resolve(this.lease(sequence, signal, adapterSet));
                },
                reject: (error) => {
                    signal.removeEventListener("abort", onAbort);
                    reject(error);
                }
            };
            signal.addEventListener("abort", onAbort, {once: true});
            this.waiters.push(waiter);
        });
    }

    public release(sequence: S): void {
        this.holders.delete(sequence);
        this.free.push(sequence);
        this.serveWaiters();
        if (this.free.length === this.size)
            this.idleListeners.splice(0).forEach((listener) => listener());
    }

    /** Resolves once every sequence is back (shutdown waits for in-flight generations to end). */
    public whenIdle(): Promise<void> {
        if (this.free.length === this.size)
            return Promise.resolve();
        return new Promise((resolve) => this.idleListeners.push(resolve));
    }

    /** Fails every waiting request and every later one that would wait (shutdown); a free sequence still serves. */
    public close(error: unknown): void {
        this.closedWith ??= error;
        for (const waiter of this.waiters.splice(0))
            waiter.reject(error);
    }

    private lease(sequence: S, signal: AbortSignal, adapterSet: string): S {
        if (this.holders.size === 0)
            this.leasedSet = adapterSet;
        this.holders.set(sequence, signal);
        return sequence;
    }

    /** Whether a request of `adapterSet` may run beside the leased sequences. */
    private admits(adapterSet: string): boolean {
        return this.holders.size === 0 || this.leasedSet === adapterSet;
    }

    /** Hands free sequences to the queue's head while its adapter set may run now. */
    private serveWaiters(): void {
        while (this.free.length > 0 && this.waiters.length > 0 && this.admits(this.waiters[0]!.adapterSet)) {
            const waiter = this.waiters.shift()!;
            waiter.resolve(this.takeBestFor(waiter.prompt, waiter.partition));
        }
    }

    /** Leased sequences whose request was aborted: they come back within a decode step. */
    private returning(): number {
        let count = 0;
        for (const signal of this.holders.values())
            if (signal.aborted)
                count++;
        return count;
    }

    /** `free` is in release order: its first sequence is the one used least recently. */
    private takeBestFor(prompt: readonly number[], partition: CachePartition | undefined): S {
        let bestIndex = 0;
        let bestLength = -1;
        this.free.forEach((sequence, index) => {
            const length = holdsCacheOf(sequence, partition) ? commonPrefixLength(sequence.contextTokens, prompt) : 0;
            if (length > bestLength) {
                bestIndex = index;
                bestLength = length;
            }
        });
        const useful = bestLength >= Math.min(usefulPrefix, prompt.length / 2);
        return this.free.splice(useful ? bestIndex : 0, 1)[0]!;
    }
}

export function commonPrefixLength(a: readonly number[], b: readonly number[]): number {
    const limit = Math.min(a.length, b.length);
    let index = 0;
    while (index < limit && a[index] === b[index])
        index++;
    return index;
}
