import type {CachePartition} from "../generationOptions.js";
import {LookupPool} from "./lookupPool.js";

/** Partitions with a pool of their own per model; past it the one unused longest is dropped (at most 8 × 2 MiB a model). */
const poolsPerModel = 8;

/**
 * Each model's lookup pools, one per cache partition (engine/cachePartitions.ts): a draft taken
 * from another partition's text would make its replies faster, and the time a reply takes would
 * tell one API key what another sent, as a shared prompt cache would. Kept beside the context the
 * model generates with, as cachePartitions.ts keeps its tags: when the model unloads its context
 * goes, and its pools with it.
 */
const poolsByContext = new WeakMap<object, Map<CachePartition | undefined, LookupPool>>();

/** The pool that `partition`'s generations on `context` draft from and add to. */
export function lookupPoolFor(context: object, partition: CachePartition | undefined): LookupPool {
    let pools = poolsByContext.get(context);
    if (pools == null)
        poolsByContext.set(context, pools = new Map());
    let pool = pools.get(partition);
    if (pool == null) {
        if (pools.size >= poolsPerModel)
            pools.delete(pools.keys().next().value);
        pool = new LookupPool();
    } else
        pools.delete(partition);
    // Map order is use order: the first key is the partition unused longest.
    pools.set(partition, pool);
    return pool;
}
