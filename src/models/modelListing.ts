import type {PromptCacheUsage} from "../engine/promptCache/promptCacheStats.js";
import type {KeepAlive} from "./keepAlive.js";
import {listedAlias, listedDanglingAlias, listedModel, type ListedModel} from "./listedModel.js";
import {totalBytes} from "./memoryEstimate.js";
import {tooLargeError, type BudgetDescription} from "./memoryMessages.js";
import {fitsAlone} from "./memoryPlacement.js";
import type {Catalogue} from "./modelCatalogue.js";
import type {ModelDescriptor} from "./modelDescriptor.js";
import type {ModelLookup} from "./modelLookup.js";
import {occupancyOf, type ModelOccupancy} from "./modelOccupancy.js";
import type {ModelSizing} from "./modelSizing.js";
import type {ResidencyLedger} from "./residencyLedger.js";

/**
 * What the server says of its models, read and never changed: each model of the folder with its
 * plan and where it stands in memory (GET /v1/models, `chatserve ps`, the start-up banner), and
 * what each holds now (metrics).
 */
export class ModelListing {
    public constructor(
        private readonly catalogue: Catalogue,
        private readonly lookup: ModelLookup,
        private readonly sizing: ModelSizing,
        private readonly residencies: Pick<ResidencyLedger, "current" | "all" | "occupants">,
        private readonly budget: BudgetDescription,
        /** --keep-alive: a model's when chatserve.json names none. */
        private readonly keepAlive: KeepAlive | null,
        /** What the prompt cache holds for a model, by the path it loads from. */
        private readonly promptCacheUsage: (modelPath: string) => PromptCacheUsage | undefined = () => undefined
    ) {}

    /** The folder's models, then each exact alias as an entry of its own (patterns show on the models they lead to). */
    public list(): ListedModel[] {
        const models = this.catalogue.list().map((descriptor) => this.entryFor(descriptor));
        const aliases = this.lookup.exactAliases()
            .filter(({name}) => this.catalogue.find(name) == null)
            .map(({name, model}) => {
                const target = models.find((entry) => entry.id === model);
                return target == null ? listedDanglingAlias(name, model) : listedAlias(name, target);
            });
        return [...models, ...aliases];
    }

    /** One entry by the name a client uses: a model's id, or an alias (or a name a pattern covers) as an entry of its own. */
    public async describe(name: string): Promise<ListedModel> {
        const descriptor = await this.lookup.find(name);
        const entry = this.entryFor(descriptor);
        return descriptor.id === name ? entry : listedAlias(name, entry);
    }

    /** Each model holding or awaiting memory now (metrics' gauges, read at a scrape). */
    public occupancy(): ModelOccupancy[] {
        return occupancyOf([...this.residencies.all(), ...this.residencies.occupants()]);
    }

    private entryFor(descriptor: ModelDescriptor): ListedModel {
        const plan = this.sizing.planFor(descriptor);
        const estimate = this.sizing.estimateFor(descriptor);
        const tooLarge = fitsAlone(totalBytes(estimate), this.budget) ? undefined : tooLargeError(descriptor.id, plan, estimate, this.budget).message;
        const view = {
            residency: this.residencies.current(descriptor), estimate, measured: this.sizing.isMeasured(descriptor), tooLarge,
            keepAlive: this.sizing.modelSettings(descriptor.id).keepAlive ?? this.keepAlive
        };
        return listedModel(descriptor, plan, view, this.lookup.namesFor(descriptor.id), this.promptCacheUsage(descriptor.path));
    }
}
