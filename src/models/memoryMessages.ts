import {InsufficientMemoryError, ModelTooLargeError} from "../errors.js";
import {formatBytes} from "./byteSize.js";
import type {MemoryBudget} from "./memoryPlacement.js";
import type {ContextPlan} from "./contextPlan.js";
import {totalBytes, type MemoryFootprint} from "./memoryEstimate.js";
import type {Residency} from "./residency.js";

/**
 * What a request hears when memory stands in its way, with the numbers a person needs to act:
 * what the model needs, what the budget is and where it came from, what is free, who holds the rest.
 */

export type BudgetDescription = MemoryBudget & {
    /** Where the byte limit came from: "--memory-limit", or "the memory free at start". */
    source: string
};

/** Retry-After on insufficient_memory: long enough for a reply to end, short enough that the SDKs' two retries are worth it. */
export const insufficientMemoryRetrySeconds = 5;

export function tooLargeError(id: string, plan: ContextPlan, estimate: MemoryFootprint, budget: BudgetDescription): ModelTooLargeError {
    if (budget.models < 1)
        return new ModelTooLargeError(`The model '${id}' cannot load: --max-loaded-models is 0.`);
    return new ModelTooLargeError(
        `The model '${id}' needs ${formatBytes(totalBytes(estimate))} of memory (its weights, and the KV cache and buffers of ` +
        `${plan.parallel} × ${plan.contextLength} tokens), more than the ${formatBytes(budget.bytes)} chatserve may use (${budget.source}), ` +
        "even with no other model loaded. A smaller --ctx-size or --parallel, or a larger --memory-limit, would let it load.");
}

/** After waiting as long as a request may: who holds the memory, and how busy they are. */
export function insufficientMemoryError(
    residency: Residency, occupants: readonly Residency[], budget: BudgetDescription, waitedMs: number
): InsufficientMemoryError {
    const need = totalBytes(residency.estimate);
    const used = occupants.reduce((sum, occupant) => sum + totalBytes(occupant.memory), 0);
    const free = Math.max(0, budget.bytes - used);
    const holders = occupants.map((occupant) => `'${occupant.id}' (${describeHolder(occupant)})`);
    const countLimit = Number.isFinite(budget.models) && occupants.length >= budget.models
        ? `; ${occupants.length} models are loaded, the most --max-loaded-models allows` : "";
    const budgetText = Number.isFinite(budget.bytes)
        ? `${formatBytes(free)} of the ${formatBytes(budget.bytes)} chatserve may use (${budget.source}) is free`
        : "memory is not the limit";
    return new InsufficientMemoryError(
        `Not enough memory to load the model '${residency.id}': it needs ${formatBytes(need)}, and ${budgetText}${countLimit}. ` +
        `The models holding the rest stayed busy for the ${Math.round(waitedMs / 1000)} s this request waited: ${holders.join(", ") || "none"}. ` +
        "Retry shortly.", insufficientMemoryRetrySeconds);
}

/** A request waited for its model to finish unloading (to make room for another) for as long as it may. */
export function stillUnloadingError(residency: Residency, waitedMs: number): InsufficientMemoryError {
    const forWhom = residency.makingRoomFor == null ? "" : ` to make room for '${residency.makingRoomFor.id}'`;
    return new InsufficientMemoryError(
        `The model '${residency.id}' is being unloaded${forWhom} once its running requests end, and was not unloaded ` +
        `within the ${Math.round(waitedMs / 1000)} s this request waited; it loads again after that. Retry shortly.`, insufficientMemoryRetrySeconds);
}

function describeHolder(occupant: Residency): string {
    const size = formatBytes(totalBytes(occupant.memory));
    if (occupant.state === "loading")
        return `${size}, loading`;
    if (occupant.disposal != null)
        return `${size}, being freed`;
    if (occupant.pinned)
        return `${size}, kept loaded by a keep-alive of -1`;
    return `${size}, ${occupant.holds} request${occupant.holds === 1 ? "" : "s"}${occupant.unloading ? ", to be unloaded when they end" : ""}`;
}
