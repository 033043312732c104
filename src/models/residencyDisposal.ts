import type {Logger} from "pino";
import type {LoadedModel} from "../engine/loadedModel.js";
import {ModelUnloadedError} from "../errors.js";
import {formatBytes} from "./byteSize.js";
import type {ModelLifecycleObserver} from "./registrySettings.js";
import type {Residency} from "./residency.js";

/**
 * Frees a residency's model, once (`residency.disposal` is set once, and its memory counts against
 * the budget until that settles): logs the unload or its failure, tells the lifecycle observer how
 * long it took, then hands the residency back to the ledger (`freed`, residencyLedger.ts).
 */
export class ResidencyDisposal {
    public constructor(
        private readonly logger: Logger,
        private readonly freed: (residency: Residency) => void,
        private readonly lifecycle?: ModelLifecycleObserver
    ) {}

    /** Disposes an idle (or shut down) model's weights and context, once; its memory counts until that ends. */
    public free(residency: Residency, model: LoadedModel, why: string): void {
        if (residency.disposal != null)
            return;
        residency.unloading = true;
        residency.clearExpiry();
        const bytes = residency.bytes;
        residency.disposal = this.timedDispose(residency, model).catch((error: unknown) => {
            this.logger.error({event: "model_unload_failed", model: residency.id, err: error}, `failed to unload ${residency.id}`);
        }).finally(() => {
            this.logger.info({event: "model_unloaded", model: residency.id, memoryBytes: bytes, why}, `unloaded ${residency.id} (${formatBytes(bytes)} freed) ${why}`);
            this.freed(residency);
        });
    }

    /** A retired model (its file left or changed), once loaded: requests queued for it get a 503 now; its memory goes once running ones end. */
    public retire(residency: Residency, why: string): void {
        residency.disposal = residency.ready.then((model) => {
            model.stopQueueing(new ModelUnloadedError(residency.id, why));
            return this.timedDispose(residency, model);
        }, () => {}).catch((error: unknown) => {
            this.logger.error({event: "model_unload_failed", model: residency.id, err: error}, `failed to unload ${residency.id}`);
        }).finally(() => this.freed(residency));
    }

    /** Disposes the model, telling the lifecycle observer how long it took (its running replies end first). */
    private async timedDispose(residency: Residency, model: LoadedModel): Promise<void> {
        const started = performance.now();
        try {
            await model.dispose();
        } finally {
            this.lifecycle?.unloaded(residency.id, (performance.now() - started) / 1000);
        }
    }
}
