import type {LlamaContextSequence, Token} from "node-llama-cpp";
import {holdsCacheOf} from "./cachePartitions.js";
import type {CachePartition} from "./generationOptions.js";
import {copySequencePrefix} from "./llamaInternals.js";
import {commonPrefixLength} from "./sequencePool.js";

/**
 * Fewer new tokens than this are evaluated rather than copied: llama.cpp copies a sequence's whole
 * KV buffer (its --ctx-size cells), which costs about what evaluating a few dozen tokens does.
 */
export const minimumSharedGain = 64;

/**
 * A request's sequence takes another sequence's cached prefix of its prompt when that one holds at
 * least `minimumSharedGain` more of it, so the request evaluates only what is new even when the
 * cache it needs is on a sequence still in use: the one of a request cancelled a moment ago, whose
 * generation has not stopped yet (an IDE's next keystroke: it went to an empty sequence and
 * evaluated the whole file again), or a running agent's, sending the same long system prompt.
 *
 * Only from a sequence holding the target's own cache partition (`partition`, which the target holds
 * already: cachePartitions.ts): a copy from another's would tell its prompt in `cached_tokens`.
 *
 * Not for models that keep state snapshots (hybrid, recurrent, sliding-window): their caches cannot
 * be cut at any token. Resolves to the tokens taken over, 0 if none.
 */
export async function takeLongerPrefix(
    target: LlamaContextSequence, others: readonly LlamaContextSequence[], prompt: readonly Token[], partition?: CachePartition
): Promise<number> {
    if (target.needsCheckpoints)
        return 0;
    let donor: LlamaContextSequence | undefined;
    let longest = commonPrefixLength(target.contextTokens, prompt) + minimumSharedGain - 1;
    for (const other of others) {
        const length = other === target || !holdsCacheOf(other, partition) ? 0 : commonPrefixLength(other.contextTokens, prompt);
        if (length > longest) {
            donor = other;
            longest = length;
        }
    }
    if (donor == null)
        return 0;
    return await copySequencePrefix(target, donor, longest) ? longest : 0;
}
