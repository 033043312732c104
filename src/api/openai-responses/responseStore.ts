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

/**
 * The Responses API's `store`: responses kept in memory, per API key (one key's client can neither
 * read nor continue another's), until the server restarts or the bounds evict the least recently
 * used. A local server has no database to keep them in, and agents that need more send
 * `store: false` with their whole history anyway (Codex does).
 */
export class ResponseStore {
    private readonly entries = new Map<string, StoredResponse & {bytes: number}>();
    private bytes = 0;

    public constructor(private readonly limits: ResponseStoreLimits = defaultStoreLimits) {}

    public put(owner: string, stored: StoredResponse): void {
        const key = storeKey(owner, stored.response.id);
        const bytes = JSON.stringify(stored).length;
        if (bytes > this.limits.maxBytes)
            return;
        this.delete(owner, stored.response.id);
        this.entries.set(key, {...stored, bytes});
        this.bytes += bytes;
        for (const [oldest, entry] of this.entries) {
            if (this.entries.size <= this.limits.maxResponses && this.bytes <= this.limits.maxBytes)
                break;
            this.entries.delete(oldest);
            this.bytes -= entry.bytes;
        }
    }

    /** The stored response, now the most recently used; undefined when unknown, evicted or another key's. */
    public get(owner: string, id: string): StoredResponse | undefined {
        const key = storeKey(owner, id);
        const entry = this.entries.get(key);
        if (entry == null)
            return undefined;
        this.entries.delete(key);
        this.entries.set(key, entry);
        return entry;
    }

    public delete(owner: string, id: string): boolean {
        const key = storeKey(owner, id);
        const entry = this.entries.get(key);
        if (entry == null)
            return false;
        this.entries.delete(key);
        this.bytes -= entry.bytes;
        return true;
    }

    public get size(): number {
        return this.entries.size;
    }
}

function storeKey(owner: string, id: string): string {
    return `${owner}\u0000${id}`;
}
