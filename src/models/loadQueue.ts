import type {Logger} from "pino";
import type {LoadedModel} from "../engine/loadedModel.js";
import {ModelUnavailableError, ModelUnloadedError, type ApiError} from "../errors.js";
import {formatBytes} from "./byteSize.js";
import {totalBytes} from "./memoryEstimate.js";
import type {BudgetDescription} from "./memoryMessages.js";
import {overBudget, placeModel} from "./memoryPlacement.js";
import type {Catalogue} from "./modelCatalogue.js";
import type {ModelSizing} from "./modelSizing.js";
import type {ModelLoader} from "./registrySettings.js";
import type {Residency} from "./residency.js";
import type {ResidencyLedger} from "./residencyLedger.js";

/**
 * The loads waiting for room in the memory budget, started in turn: after every move in the
 * ledger (a load ending, a request letting go, a model freed), `pump` starts those that fit now
 * and makes room for the first that does not. What fits where is memoryPlacement.ts's pure
 * decision; this carries it out, logs each load, and tells its requests how it ended.
 */
export class LoadQueue {
    public constructor(
        private readonly catalogue: Catalogue,
        private readonly ledger: ResidencyLedger,
        private readonly budget: BudgetDescription,
        private readonly sizing: ModelSizing,
        private readonly load: ModelLoader,
        private readonly logger: Logger,
        /** Aborted when shutdown begins: no load starts after. */
        private readonly stopping: AbortSignal
    ) {}

    /**
     * Unloads idle models while the loaded ones take more than the budget (a load that took more than
     * its estimate), then runs the waiting loads that fit, and makes room for the first that does not:
     * idle models are unloaded now, busy ones once their requests end (see memoryPlacement.ts). A later
     * load may start before an earlier one only within the memory the earlier ones leave.
     */
    public pump(): void {
        if (this.stopping.aborted)
            return;
        for (const occupant of overBudget(this.ledger.occupants(), this.budget))
            this.ledger.drain(occupant, null, "to bring the loaded models back within the memory budget");
        const reserved = {bytes: 0, models: 0};
        let first = true;
        for (const residency of this.ledger.waiting()) {
            const need = totalBytes(residency.estimate);
            const placement = placeModel(need, this.ledger.occupants(), this.budget, reserved);
            if (placement.verdict === "fits") {
                this.start(residency);
                continue;
            }
            if (first && placement.verdict === "makeRoom") {
                const why = `to make room for ${residency.id} (${formatBytes(need)})`;
                for (const occupant of [...placement.idle, ...placement.busy])
                    this.ledger.drain(occupant, residency, why);
            }
            first = false;
            reserved.bytes += need;
            reserved.models++;
        }
    }

    /** The residency's model once loaded; its load's failure as a 503 or 400 with the reason. */
    public async loaded(residency: Residency): Promise<LoadedModel> {
        return await residency.ready.catch(async (error: unknown) => {
            if (residency.state !== "failed")
                throw error;
            throw await this.loadFailure(residency);
        });
    }

    /**
     * Why a load failed, as its requests hear it. A file that left or changed in the folder while it
     * loaded (llama.cpp could not open it) is the folder's change: 503, and a retry finds what the
     * folder holds now. Anything else is the file's own fault: 400, and /v1/models lists it unavailable.
     */
    private async loadFailure({descriptor, error}: Residency): Promise<ApiError> {
        await this.catalogue.refresh().catch(() => undefined);
        if (this.catalogue.find(descriptor.id) !== descriptor)
            return new ModelUnloadedError(descriptor.id, "its file left or changed in the models folder while it loaded");
        return new ModelUnavailableError(descriptor.id, error ?? "it failed to load");
    }

    /** Memory was granted: the load starts; once loaded, what it took is remembered for its next load. */
    private start(residency: Residency): void {
        const {descriptor, plan} = residency;
        const started = Date.now();
        this.logger.info({event: "model_loading", model: descriptor.id, estimatedBytes: totalBytes(residency.estimate)}, `loading ${descriptor.id}`);
        this.ledger.start(residency, () => this.load(descriptor, plan));
        residency.ready.then((model) => {
            if (residency.measured)
                this.sizing.remember(descriptor, residency.memory);
            this.logger.info({
                event: "model_loaded", model: descriptor.id, contextLength: model.contextLength, parallel: plan.parallel,
                kvCacheBytes: plan.kvCacheBytes, contextMemoryBytes: model.contextMemoryBytes,
                estimatedBytes: totalBytes(residency.estimate), memoryBytes: totalBytes(residency.memory), ms: Date.now() - started
            }, `loaded ${descriptor.id} (${model.contextLength} tokens per request, ${plan.parallel} at once, ${formatBytes(totalBytes(residency.memory))}) in ${Date.now() - started} ms`);
            // It serves without its draft: said once, where the load is.
            if (model.draftRefusal != null)
                this.logger.warn({event: "draft_model_refused", model: descriptor.id, draft: plan.draft?.path, reason: model.draftRefusal}, `${descriptor.id}: ${model.draftRefusal}`);
        }, (error: unknown) => {
            this.logger.error({event: "model_load_failed", model: descriptor.id, err: error}, `failed to load ${descriptor.id}`);
        });
    }
}
