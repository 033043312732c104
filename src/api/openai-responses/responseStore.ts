import type {InputItem} from "./responsesRequest.js";
import type {ResponseObject} from "./responsesResponse.js";

/** A stored response and the conversation it ends (its input and output items), for `previous_response_id`. */
export type StoredResponse = {response: ResponseObject, items: InputItem[]};

export type ResponseStoreLimits = {
    /** Responses kept at most. */
    maxResponses: number,
    /** Their JSON size together, at most, in bytes (each keeps its whole conversation). */
    maxBytes: number
};

export const defaultStoreLimits: ResponseStoreLimits = {maxResponses: 1000, maxBytes: 256 * 1024 * 1024};

type Entry = StoredResponse & {bytes: number, lastUsed: number};

/** One key's responses by id, least recently used first, and their size together. */
type Holding = {entries: Map<string, Entry>, bytes: number};

/**
 * The Responses API's `store`: responses kept in memory, per API key (one key's client can neither
 * read nor continue another's), until the server restarts or the bounds evict them. A local server
 * has no database to keep them in, and agents that need more send `store: false` with their whole
 * history anyway (Codex does).
 *
 * The bounds are the whole server's, but eviction takes from the key holding the most (of the bound
 * that is exceeded: responses, or bytes), its least recently used response first. So each of k keys
 * is sure of a fair share (a k-th of each bound): a key that stores a thousand responses evicts its
 * own, never the few of another key that is within its share. With one key (or none) this is plain
 * least-recently-used eviction.
 */
export class ResponseStore {
    private readonly holdings = new Map<string, Holding>();
    private count = 0;
    private bytes = 0;
    /** A clock of uses: which of the largest keys' oldest responses is older, when two keys hold as much. */
    private uses = 0;

    public constructor(private readonly limits: ResponseStoreLimits = defaultStoreLimits) {}

    public put(owner: string, stored: StoredResponse): void {
        const bytes = JSON.stringify(stored).length;
        if (bytes > this.limits.maxBytes)
            return;
        this.delete(owner, stored.response.id);
        let holding = this.holdings.get(owner);
        if (holding == null)
            this.holdings.set(owner, holding = {entries: new Map(), bytes: 0});
        holding.entries.set(stored.response.id, {...stored, bytes, lastUsed: ++this.uses});
        holding.bytes += bytes;
        this.count++;
        this.bytes += bytes;
        this.evictOverBounds();
    }

    /** The stored response, now the most recently used; undefined when unknown, evicted or another key's. */
    public get(owner: string, id: string): StoredResponse | undefined {
        const entries = this.holdings.get(owner)?.entries;
        const entry = entries?.get(id);
        if (entries == null || entry == null)
            return undefined;
        entries.delete(id);
        entries.set(id, {...entry, lastUsed: ++this.uses});
        return entry;
    }

    public delete(owner: string, id: string): boolean {
        const holding = this.holdings.get(owner);
        const entry = holding?.entries.get(id);
        if (holding == null || entry == null)
            return false;
        holding.entries.delete(id);
        holding.bytes -= entry.bytes;
        this.count--;
        this.bytes -= entry.bytes;
        if (holding.entries.size === 0)
            this.holdings.delete(owner);
        return true;
    }

    public get size(): number {
        return this.count;
    }

    /** Responses one key holds now. */
    public heldBy(owner: string): number {
        return this.holdings.get(owner)?.entries.size ?? 0;
    }

    private evictOverBounds(): void {
        while (this.count > this.limits.maxResponses || this.bytes > this.limits.maxBytes) {
            const usage = this.count > this.limits.maxResponses ? (holding: Holding) => holding.entries.size : (holding: Holding) => holding.bytes;
            let largest: {owner: string, holding: Holding, oldest: [string, Entry]} | undefined;
            for (const [owner, holding] of this.holdings) {
                const oldest = holding.entries.entries().next().value!;
                if (largest == null || usage(holding) > usage(largest.holding)
                    || (usage(holding) === usage(largest.holding) && oldest[1].lastUsed < largest.oldest[1].lastUsed))
                    largest = {owner, holding, oldest};
            }
            this.delete(largest!.owner, largest!.oldest[0]);
        }
    }
}
