import type {LlamaContextSequence, Token} from "node-llama-cpp";
import type {GenerationOptions} from "../generationOptions.js";
import type {GenerationResult} from "../generationEvents.js";
import {heldPartition} from "../cachePartitions.js";
import {LookupDrafts, PoolDrafts} from "./draftSources.js";
import {lookupPoolFor} from "./lookupPools.js";
import {PredictionDrafts} from "./predictionDrafts.js";
import {DraftModelSpeculation} from "./draftModelSpeculation.js";
import {ModelDrafts, type DraftModelLink} from "./modelDrafts.js";
import {Speculation, type RatedSource} from "./speculation.js";
import type {DraftCost} from "./draftLength.js";

/** How a model's generations speculate (chatserve.json / flags, through the runtime). */
export type SpeculationSettings = {
    /** Draftless lookup in the prompt and the reply so far, and in the model's pool, for every request that can take drafts. */
    lookup: boolean,
    /**
     * A drafted token's share of a plain step's time (draftLength.ts), fixed (config's draftTokenCost,
     * --draft-token-cost), a drafted pass then costing nothing more. Absent: the decode loop measures
     * both (draftCostEstimate.ts).
     */
    draftTokenCost?: number,
    /** The model's draft model (chatserve.json's `draft`, --draft-model), loaded with it; absent: none. */
    draft?: DraftModelLink
};

/** A prediction is the client's word for the reply: believed right until shown wrong (a draft of 16 at once). */
const predictionPrior = 0.9;
/** Lookup is a guess: 2 tokens at first, more once it proves right. */
const lookupPrior = 0.4;
/** The pool mixes other requests' text: a token at first (below lookup's, which wins a tie of guesses until the pool proves better). */
const poolPrior = 0.35;

/** What speculating generations report: their speculation, and the prediction's tally when a client sent one. */
export type SpeculationPlan = {speculation: Speculation, prediction?: PredictionDrafts, draftModel?: DraftModelSpeculation};

/**
 * Whether a generation can take drafts, and from what. Only a reply whose sampler does not change
 * from token to token: free text without penalties or token-by-token bias, and without logprobs
 * (their reader runs per sampled output). A grammar's state and a penalty's window are advanced by
 * the generation loop between tokens, which a drafted step samples without returning to. Nor a
 * model whose state is recurrent (a rejected draft cannot be taken back out of it). `cost`: what a
 * draft costs in plain steps, as the decode loop has it now (DecodeSteps.draftCost: measured, or a
 * token's fixed by --draft-token-cost), read once per generation.
 */
export function planSpeculation(
    sequence: LlamaContextSequence, prompt: readonly Token[], options: GenerationOptions, changesPerToken: boolean,
    settings: SpeculationSettings | undefined, cost: DraftCost
): SpeculationPlan | undefined {
    if (changesPerToken || options.format.type !== "text" || options.logprobs != null || sequence.needsCheckpoints)
        return undefined;
    const sources: RatedSource[] = [];
    let prediction: PredictionDrafts | undefined;
    if (options.prediction != null && options.prediction !== "") {
        const {model} = sequence;
        const reader = {
            tokenize: (text: string) => model.tokenize(text, false),
            detokenize: (tokens: readonly Token[], before: readonly Token[]) => model.detokenize(tokens, false, before)
        };
        prediction = new PredictionDrafts(options.prediction, reader, prompt);
        sources.push({source: prediction, prior: predictionPrior});
    }
    if (settings?.lookup === true) {
        sources.push({source: new LookupDrafts(prompt), prior: lookupPrior});
        // Of this model, and of the request's own cache partition: another's text is never a draft here.
        sources.push({source: new PoolDrafts(lookupPoolFor(sequence.context, heldPartition(sequence)), prompt), prior: poolPrior});
    }
    const draftSequence = settings?.draft?.sequenceFor(sequence);
    const draftModel = draftSequence == null ? undefined : new DraftModelSpeculation(new ModelDrafts(draftSequence, prompt), settings!.draft!, cost);
    if (sources.length === 0 && draftModel == null)
        return undefined;
    return {speculation: new Speculation(sources, cost), ...(prediction == null ? {} : {prediction}), ...(draftModel == null ? {} : {draftModel})};
}

/** Measured on 2 CPU cores (docs/speculative-decoding.md): a step of 1 + 7 drafted tokens costs ~2.1 plain steps. */
export const defaultDraftTokenCost = 0.15;

/**
 * What a generation's result says of its speculation: the prediction's tally (a prediction sent with
 * a generation that could not take drafts was not used: all of it rejected) and the drafts' counts.
 */
export function speculationReport(plan: SpeculationPlan | undefined, sequence: LlamaContextSequence, options: GenerationOptions): Pick<GenerationResult, "prediction" | "drafts"> {
    const prediction = plan?.prediction != null ? {accepted: plan.prediction.accepted, rejected: plan.prediction.rejected}
        : options.prediction != null ? {accepted: 0, rejected: sequence.model.tokenize(options.prediction, false).length} : undefined;
    const draftModel = plan?.draftModel?.counts;
    const drafts = draftModel == null || draftModel.drafted === 0 ? plan?.speculation.counts : {...plan!.speculation.counts, draft: draftModel};
    return {...(prediction == null ? {} : {prediction}), ...(drafts == null || Object.keys(drafts).length === 0 ? {} : {drafts})};
}

/**
 * The next step's draft: the request's own sources first (a prediction, lookup: their guesses cost
 * nothing), the draft model only where they have none worth sending. Synchronous unless the draft
 * model runs, so a step without it never waits for a turn of the event loop.
 */
export function nextDraft(plan: SpeculationPlan, room: number, streams = 1): Token[] | Promise<Token[]> {
    const draft = plan.speculation.draft(room, streams);
    return draft.length > 0 || plan.draftModel == null ? draft : plan.draftModel.draft(room, streams);
}

/** The step's kept tokens, to every source of the plan. */
export function settleDraft(plan: SpeculationPlan, kept: readonly Token[]): void {
    plan.speculation.settle(kept);
    plan.draftModel?.settle(kept);
}
