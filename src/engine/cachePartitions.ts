import type {LlamaContextSequence} from "node-llama-cpp";
import type {CachePartition} from "./generationOptions.js";

/**
 * The partition whose tokens each sequence's KV cache holds. A prompt reuses a cached prefix only of
 * its own partition's: otherwise a client could send prompts sharing a growing prefix with another
 * client's and read, from `cached_tokens` (or the time to the first token), how far they match, one
 * token at a time (as vLLM's `cache_salt` prevents). Kept beside the sequences rather than in them:
 * node-llama-cpp's sequence has no room for it. A sequence never leased has no entry (undefined).
 */
const holders = new WeakMap<object, CachePartition | undefined>();

/** Whether a request of `partition` may reuse what `sequence` holds (the sequence pool, prefix sharing). */
export function holdsCacheOf(sequence: object, partition: CachePartition | undefined): boolean {
    return holders.get(sequence) === partition;
}

/** The partition whose tokens `sequence` holds (undefined: the shared one, or nothing yet): what the prompt cache saves them as. */
export function heldPartition(sequence: object): CachePartition | undefined {
    return holders.get(sequence);
}

/**
 * Makes the leased sequence's cache `partition`'s before anything of its request is evaluated:
 * another partition's tokens are erased first, so the sequence serves as a blank one (nothing of its
 * prompt counts as cached). Resolves whether anything was erased.
 */
export async function claimCache(sequence: LlamaContextSequence, partition: CachePartition | undefined): Promise<boolean> {
    if (holdsCacheOf(sequence, partition))
        return false;
    const held = sequence.nextTokenIndex > 0;
    if (held)
        await sequence.clearHistory();
    // Tagged once empty: until then a donor search of the old partition may still copy from it.
    holders.set(sequence, partition);
    return held;
}

/**
 * The key of a decoded image in the projector's cache: its bytes' SHA-256, and the partition when
 * there is one. Another partition's request decodes and encodes the same image again (seconds on a
 * CPU) rather than learn from a quick reply that someone sent that image.
 */
export function imageCacheId(imageId: string, partition: CachePartition | undefined): string {
    return partition == null ? imageId : `${imageId}@${partition}`;
}
