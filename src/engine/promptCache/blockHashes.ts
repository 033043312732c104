import {createHash} from "node:crypto";

/**
 * Tokens per block of the chained hash. A cached prefix is found at block granularity (then its exact
 * length is read from its tokens): 128 is fine enough that a prompt differing a few hundred tokens
 * into an agent's system prompt still finds the shared part, and coarse enough that a 32k-token
 * prompt is 256 hashes.
 */
export const blockTokens = 128;

/**
 * The chained hash after each whole block of `tokens`: entry i covers tokens [0, (i + 1) × blockTokens),
 * and the chain starts from `seed` (the model's layout and the cache partition), so two prompts share
 * an entry's hash only if they share every token before it under the same model and partition. As
 * llama-server's disk cache proposal does, a prefix is then looked up by hash, never by reading files.
 * SHA-256 cut to 128 bits: a collision only costs a miss, since a hit's tokens are compared exactly.
 */
export function chainedBlockHashes(seed: string, tokens: ArrayLike<number>): string[] {
    const hashes: string[] = [];
    let previous = createHash("sha256").update(seed).digest("hex").slice(0, 32);
    const block = new Int32Array(blockTokens);
    for (let start = 0; start + blockTokens <= tokens.length; start += blockTokens) {
        for (let index = 0; index < blockTokens; index++)
            block[index] = tokens[start + index]!;
        previous = createHash("sha256").update(previous).update(new Uint8Array(block.buffer)).digest("hex").slice(0, 32);
        hashes.push(previous);
    }
    return hashes;
}

/** Tokens both sequences start with. */
export function sharedPrefix(a: ArrayLike<number>, b: ArrayLike<number>): number {
    const limit = Math.min(a.length, b.length);
    let index = 0;
    while (index < limit && a[index] === b[index])
        index++;
    return index;
}
