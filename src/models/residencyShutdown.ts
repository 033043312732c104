import type {Logger} from "pino";
import {ServiceShuttingDownError, type ApiError} from "../errors.js";
import {stillRunning, withinMs} from "./boundedWait.js";
import type {Residency} from "./residency.js";
import type {ResidencyDisposal} from "./residencyDisposal.js";

/** How long shutdown waits for a load still running (a real load of a big model takes seconds; a hung one, for ever). */
export const shutdownLoadWaitMs = 10_000;

/**
 * What the residency ledger (residencyLedger.ts) does to its models when the server stops: first
 * every request still waiting is failed, then each model is freed once its load has ended. Kept
 * apart from the ledger's moves because shutdown bends their rules: no keep-alive, no queue, and a
 * load that hangs is left behind rather than waited for.
 */

/** Requests waiting for room, for a sequence, or to prepare a prompt fail with `reason`; no keep-alive fires. */
export function stopQueueingAll(residencies: Iterable<Residency>, reason: ApiError): void {
    for (const residency of residencies) {
        residency.clearExpiry();
        residency.cancel(reason);
        residency.model?.stopQueueing(reason);
    }
}

/**
 * Frees every model, once its load (and any batch it is decoding) has ended: llama.cpp must outlive
 * both. A load still running after `loadWaitMs` is left to run (a load that hangs must not hold
 * shutdown: a malformed projector's load once did, for ever): the count of those is returned.
 */
export async function freeAllAtShutdown(
    residencies: Iterable<Residency>, disposals: ResidencyDisposal, logger: Logger, loadWaitMs: number
): Promise<{loadsLeftRunning: number}> {
    const shutdown = new ServiceShuttingDownError();
    let loadsLeftRunning = 0;
    await Promise.all([...residencies].map(async (residency) => {
        residency.clearExpiry();
        residency.cancel(shutdown);
        const model = await withinMs(residency.ready.catch(() => null), loadWaitMs);
        if (model === stillRunning) {
            loadsLeftRunning++;
            logger.warn({event: "model_load_abandoned", model: residency.id}, `shutting down while ${residency.id} still loads: its load is left behind`);
            return;
        }
        if (model != null)
            disposals.free(residency, model, "the server is shutting down");
        await residency.disposal;
    }));
    return {loadsLeftRunning};
}
