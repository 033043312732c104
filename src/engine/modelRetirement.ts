import type {LlamaModel} from "node-llama-cpp";
import {ServiceShuttingDownError, type ApiError} from "../errors.js";
import type {ModelVision} from "./vision/modelVision.js";
import type {LlamaEmbedder} from "./llamaEmbedder.js";
import type {LlamaReranker} from "./llamaReranker.js";
import type {GenerationParts} from "./llamaModelParts.js";
import type {ModelPromptCache} from "./promptCache/modelPromptCache.js";

/** The parts a loaded model frees when it goes (llamaModelParts.ts loads them). */
export type RetiringParts = {
    model: LlamaModel,
    generation: GenerationParts | null,
    embedder: LlamaEmbedder | null,
    ranker: LlamaReranker | null,
    vision: ModelVision
};

/**
 * How a loaded model (llamaLoadedModel.ts) stops and unloads: once stopped it refuses new work with
 * the reason it was stopped for, lets the work already under way end, then frees its parts. Kept in
 * one place because the order is what matters: freeing a part something still uses crashes llama.cpp.
 */
export class ModelRetirement {
    /** Work on the model outside a leased sequence (rendering and tokenizing prompts, embedding), which dispose waits for. */
    private readonly outsideSequences = new Set<Promise<unknown>>();
    private stoppedWith: ApiError | null = null;

    public constructor(private readonly parts: RetiringParts) {}

    /** Throws what stopped the model, if it was stopped: no new work starts on a model being retired. */
    public refuseIfStopped(): void {
        if (this.stoppedWith != null)
            throw this.stoppedWith;
    }

    /** Runs `work` (refused once stopped) and remembers it until it settles, so that dispose waits for it. */
    public outsideSequence<T>(work: () => Promise<T>): Promise<T> {
        if (this.stoppedWith != null)
            return Promise.reject(this.stoppedWith);
        const running = work();
        this.outsideSequences.add(running);
        const forget = () => this.outsideSequences.delete(running);
        running.then(forget, forget);
        return running;
    }

    public stopQueueing(reason: ApiError): void {
        this.stoppedWith ??= reason;
        this.parts.generation?.pool.close(reason);
        this.parts.embedder?.stopQueueing(reason);
        this.parts.ranker?.stopQueueing(reason);
    }

    /** `promptCache`: the model's use of the prompt cache, which keeps what its sequences hold. */
    public async dispose(promptCache: ModelPromptCache | null): Promise<void> {
        const {model, generation, embedder, ranker, vision} = this.parts;
        this.stopQueueing(new ServiceShuttingDownError());
        // A request that got this model before it was retired may be tokenizing its prompt: that ends first.
        await Promise.allSettled(this.outsideSequences);
        if (generation != null) {
            // Generations still running hold sequences of this context: let them end first.
            await generation.pool.whenIdle();
            // What its sequences hold outlives it in the prompt cache (an eviction, a keep-alive, a shutdown).
            await promptCache?.safely("save prefixes at unload", () => promptCache.keepAll(generation.sequences), undefined);
            await generation.context.dispose();
            await generation.draft?.dispose();
        }
        await embedder?.dispose();
        await ranker?.dispose();
        // The projector holds the model's vocabulary: it goes first.
        vision.dispose();
        await model.dispose();
    }
}
