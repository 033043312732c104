/**
 * Where a model that wants to load finds its memory: the pure decision the scheduler takes before
 * each load (loadQueue.ts does what it says). Ollama's scheduler, with one difference: a
 * model that is generating is never stopped; it is asked to go once its requests end.
 */

/** What chatserve's models may take together. */
export type MemoryBudget = {
    /** --memory-limit, or the memory free at start less a margin; Infinity: no limit (tests). */
    bytes: number,
    /** --max-loaded-models; Infinity: memory alone decides. */
    models: number
};

/** A model that holds memory now: loading, loaded, or being unloaded. */
export type Occupant = {
    bytes: number,
    /** Loaded and serving: the only state in which it may be chosen to go. */
    loaded: boolean,
    /** Already chosen to go: its memory counts until it is freed, and will be. */
    unloading: boolean,
    /** No request holds it. */
    idle: boolean,
    /** A keep-alive of -1: never chosen. */
    pinned: boolean,
    /** Larger is more recent. */
    lastUsed: number
};

export type Placement<T extends Occupant> =
    /** Load now. */
    | {verdict: "fits"}
    /** Room is made by unloading `idle` now and `busy` once their requests end; load when they have gone. */
    | {verdict: "makeRoom", idle: T[], busy: T[]}
    /** No room now, nor any to make: memory being freed already will do, or something must change first (a load ending, a pin lifted). */
    | {verdict: "wait"};

/**
 * For a model needing `need` bytes, given the occupants and what earlier waiting loads claim
 * (`reserved`: a later load may take only what they leave). Idle models go before busy ones, each
 * least recently used first, and only as many as make room; none are chosen when even all of them
 * would not (unloading them would free nothing that helps).
 */
export function placeModel<T extends Occupant>(
    need: number, occupants: readonly T[], budget: MemoryBudget, reserved: {bytes: number, models: number} = {bytes: 0, models: 0}
): Placement<T> {
    const fits = (bytes: number, models: number) => bytes + reserved.bytes + need <= budget.bytes && models + reserved.models + 1 <= budget.models;
    const used = occupants.reduce((sum, occupant) => sum + occupant.bytes, 0);
    if (fits(used, occupants.length))
        return {verdict: "fits"};

    const staying = occupants.filter((occupant) => !occupant.unloading);
    let bytes = staying.reduce((sum, occupant) => sum + occupant.bytes, 0);
    let models = staying.length;
    if (fits(bytes, models))
        return {verdict: "wait"};

    const candidates = staying
        .filter((occupant) => occupant.loaded && !occupant.pinned)
        .sort((a, b) => Number(b.idle) - Number(a.idle) || a.lastUsed - b.lastUsed);
    const chosen: T[] = [];
    for (const candidate of candidates) {
        chosen.push(candidate);
        bytes -= candidate.bytes;
        models--;
        if (fits(bytes, models))
            return {verdict: "makeRoom", idle: chosen.filter((occupant) => occupant.idle), busy: chosen.filter((occupant) => !occupant.idle)};
    }
    return {verdict: "wait"};
}

/**
 * Idle models to unload when the loaded ones take more than the budget: a load took more than it was
 * weighed at (llama.cpp's account came in above the estimate). Least recently used first; busy and
 * pinned models are never chosen, so the budget may stay exceeded until they are idle.
 */
export function overBudget<T extends Occupant>(occupants: readonly T[], budget: MemoryBudget): T[] {
    const staying = occupants.filter((occupant) => !occupant.unloading);
    let bytes = staying.reduce((sum, occupant) => sum + occupant.bytes, 0);
    let models = staying.length;
    const chosen: T[] = [];
    const candidates = staying.filter((occupant) => occupant.loaded && occupant.idle && !occupant.pinned).sort((a, b) => a.lastUsed - b.lastUsed);
    for (const candidate of candidates) {
        if (bytes <= budget.bytes && models <= budget.models)
            break;
        chosen.push(candidate);
        bytes -= candidate.bytes;
        models--;
    }
    return chosen;
}

/** Whether a model could fit at all, with nothing else loaded. */
export function fitsAlone(need: number, budget: MemoryBudget): boolean {
    return need <= budget.bytes && budget.models >= 1;
}
