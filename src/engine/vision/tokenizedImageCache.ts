/**
 * A projector's recently tokenized images by id (the SHA-256 of the file, of the request's cache
 * partition), least recently used first, bounded in count and in bytes; and the decodes under way,
 * shared by every request that sends the same image meanwhile.
 *
 * A decode belongs to the requests waiting for it: when the last of them goes (its client left), the
 * decode's own signal aborts, so that one still queued never starts, and its result is never kept
 * (a result nobody waits for would only take memory). A request that comes later starts afresh.
 */
export class TokenizedImageCache<T> {
    private readonly entries = new Map<string, Entry<T>>();
    /** Bytes the kept (settled) images are counted at. */
    private keptBytes = 0;

    public constructor(
        private readonly limits: {images: number, bytes: number},
        /** What one kept image is counted at (its estimate: nativeVision.ts). */
        private readonly sizeOf: (image: T) => number
    ) {}

    /** Bytes the kept images are counted at now; never more than the limit's. */
    public get bytes(): number {
        return this.keptBytes;
    }

    /** Decodes under way (each counted once, however many requests wait for it). */
    public get pending(): number {
        let count = 0;
        for (const entry of this.entries.values())
            if (entry.result === undefined)
                count++;
        return count;
    }

    /** The kept image, the decode under way, or `make`'s new one; rejects with the signal's reason once aborted. */
    public get(id: string, signal: AbortSignal, make: (signal: AbortSignal) => Promise<T>): Promise<T> {
        if (signal.aborted)
            return Promise.reject(signal.reason);
        const entry = this.entries.get(id) ?? this.begin(id, make);
        // Least recently used first: touched, it goes to the end.
        this.entries.delete(id);
        this.entries.set(id, entry);
        if (entry.result !== undefined)
            return Promise.resolve(entry.result.value);
        return this.wait(id, entry, signal);
    }

    /** Forgets every image (the projector is being freed). */
    public clear(): void {
        for (const entry of this.entries.values())
            entry.stop.abort(new Error("the projector was freed"));
        this.entries.clear();
        this.keptBytes = 0;
    }

    private begin(id: string, make: (signal: AbortSignal) => Promise<T>): Entry<T> {
        const stop = new AbortController();
        const entry: Entry<T> = {stop, waiters: 0, result: undefined, decoding: make(stop.signal)};
        entry.decoding.then((value) => {
            if (this.entries.get(id) !== entry)
                return;
            const bytes = this.sizeOf(value);
            entry.result = {value, bytes};
            this.keptBytes += bytes;
            this.evict();
        }, () => {
            if (this.entries.get(id) === entry)
                this.entries.delete(id);
        });
        return entry;
    }

    private async wait(id: string, entry: Entry<T>, signal: AbortSignal): Promise<T> {
        entry.waiters++;
        try {
            return await abortable(entry.decoding, signal);
        } finally {
            entry.waiters--;
            // The last request waiting for an unfinished decode left: nobody wants it any more.
            if (entry.waiters === 0 && entry.result === undefined && this.entries.get(id) === entry) {
                this.entries.delete(id);
                entry.stop.abort(signal.reason);
            }
        }
    }

    /** The least recently used kept images go until both bounds hold (decodes under way are never evicted). */
    private evict(): void {
        let kept = [...this.entries.values()].filter((entry) => entry.result !== undefined).length;
        for (const [id, entry] of this.entries) {
            if (kept <= this.limits.images && this.keptBytes <= this.limits.bytes)
                break;
            if (entry.result === undefined)
                continue;
            this.entries.delete(id);
            this.keptBytes -= entry.result.bytes;
            kept--;
        }
    }
}

type Entry<T> = {
    /** Aborted when no request waits for the decode any more. */
    stop: AbortController,
    waiters: number,
    decoding: Promise<T>,
    /** Set once decoded and kept. */
    result: {value: T, bytes: number} | undefined
};

/** The promise's outcome, or the signal's reason as soon as it aborts. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
    signal.throwIfAborted();
    return new Promise<T>((resolve, reject) => {
        const onAbort = () => reject(signal.reason);
        signal.addEventListener("abort", onAbort, {once: true});
        promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
    });
}
