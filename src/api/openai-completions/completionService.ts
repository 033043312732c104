import {setImmediate as nextTurn} from "node:timers/promises";
import {choiceOptions, toGenerationOptions, type GenerationRequest} from "../../conversation/generationSettings.js";
import {toSampling} from "../openai-shared/samplingFields.js";
import type {SamplingDefaults} from "../../models/modelSettings.js";
import type {LoadedModel, SequenceLease} from "../../engine/loadedModel.js";
import type {PreparedPrompt} from "../../engine/preparedPrompt.js";
import type {CachePartition, GenerationOptions, ReplyFormat} from "../../engine/generationOptions.js";
import {toReplyPlan} from "../../conversation/replyPlan.js";
import {compileGrammars} from "../../conversation/replyGrammars.js";
import {compileTextGrammar} from "../../conversation/textConstraint.js";
import {toConstraintOutput} from "../openai-shared/constraintFields.js";
import {BadRequestError} from "../../errors.js";
import {resolveLoraScales} from "../../engine/loraScales.js";
import type {ModelSource} from "../../models/modelRegistry.js";
import {defaultCompletionMaxTokens, type CompletionRequest} from "./completionRequest.js";
import {choiceCount} from "../openai-shared/choiceCount.js";
import {newReplyIdentity, type ReplyIdentity} from "../openai-shared/replyFields.js";
import {rejectUnsupportedCompletionFields} from "./unsupportedFields.js";

/**
 * One choice to generate: a prompt (one per `prompt` array entry) and its options; `n` choices per
 * prompt, the prompt's first (`choice` 0) counting its tokens in usage and scoring it for `echo`.
 */
export type CompletionJob = {index: number, choice: number, promptText: string, prompt: PreparedPrompt, options: GenerationOptions};

/** A leased sequence plus the prompts to run on it, one after another; `release()` in a finally. */
export type CompletionRun = {
    identity: ReplyIdentity, jobs: CompletionJob[], echo: boolean,
    /** Whether choices report logprobs (the request's `logprobs`, 0 included). */
    logprobs: boolean,
    lease: SequenceLease, release(): void
};

/** The request's length, stop sequences and sampling, in the conversation core's terms. */
function generationRequest(request: CompletionRequest): GenerationRequest {
    return {
        ...(request.max_tokens != null ? {maxTokens: request.max_tokens} : {}),
        stop: typeof request.stop === "string" ? [request.stop] : request.stop ?? [],
        sampling: toSampling(request),
        promptPath: "prompt"
    };
}

/** The request's prompts, one per choice: a text, or token ids (a flat array of ids is one prompt). */
function promptsOf(prompt: CompletionRequest["prompt"]): Array<string | number[]> {
    if (typeof prompt === "string")
        return [prompt];
    return prompt.every((entry) => typeof entry === "number") ? [prompt as number[]] : prompt as Array<string | number[]>;
}

async function prepare(
    model: LoadedModel, prompt: string | number[], infill: {suffix: string, completionTokens: number} | null, param: string
): Promise<{prompt: PreparedPrompt, promptText: string}> {
    if (typeof prompt !== "string") {
        const {text, ...prepared} = await model.prepareTokens(prompt, param);
        return {prompt: prepared, promptText: text};
    }
    const prepared = infill != null ? model.prepareInfill(prompt, infill.suffix, {tokens: infill.completionTokens, param: "max_tokens"}) : model.prepareText(prompt, "prompt");
    return {prompt: await prepared, promptText: prompt};
}

/**
 * The reply's format: free text, or what the request's raw constraint (`grammar`, `structured_outputs`,
 * `guided_*`) asks, compiled now so a grammar llama.cpp cannot parse is a 400 before anything is sent.
 * The same reading as chat's (conversation/replyPlan.ts), with no tools.
 */
async function constrainedFormat(model: LoadedModel, request: CompletionRequest): Promise<ReplyFormat> {
    const output = toConstraintOutput(request, {responseFormat: false, hasTools: false});
    if (output == null)
        return {type: "text"};
    const plan = toReplyPlan({tools: [], output});
    const format = compileGrammars(model, plan.format, plan.schemas);
    if (format.type === "grammar" && output.type === "grammar")
        await compileTextGrammar(model, format, output.path);
    return format;
}

/**
 * Legacy completions: raw prompts (no template), or fill-in-the-middle when `suffix` is sent.
 * Like chat, every check that can fail with a status happens before anything is sent.
 */
export class CompletionService {
    public constructor(private readonly models: ModelSource) {}

    /** `cachePartition`: whose cached prompts its sequence may reuse (http/cachePartition.ts). */
    public async start(request: CompletionRequest, signal: AbortSignal, cachePartition?: CachePartition): Promise<CompletionRun> {
        rejectUnsupportedCompletionFields(request);
        // Before the model is loaded or a sequence taken: a 1,000-prompt list would hold one for minutes.
        choiceCount(request.n, promptsOf(request.prompt).length);
        const held = await this.models.acquire(request.model, "completion", {keepAlive: request.keep_alive, signal});
        try {
            const run = await this.runOn(held.model, request, signal, held.sampling, cachePartition);
            return {...run, release: () => {
                run.release();
                held.release();
            }};
        } catch (error) {
            held.release();
            throw error;
        }
    }

    /** The request's prompts prepared on the model held for it, and a sequence to run them on. */
    private async runOn(
        model: LoadedModel, request: CompletionRequest, signal: AbortSignal, modelDefaults: SamplingDefaults | undefined, cachePartition: CachePartition | undefined
    ): Promise<CompletionRun> {
        const fim = request.suffix != null && (request.suffix !== "" || model.supportsInfill);
        if (fim && !model.supportsInfill)
            throw new BadRequestError(`The model '${request.model}' has no fill-in-the-middle tokens, so 'suffix' cannot be used with it.`,
                {param: "suffix", code: "fim_not_supported"});

        const prompts = promptsOf(request.prompt);
        const perPrompt = request.n ?? 1;
        if (fim && prompts.some((prompt) => typeof prompt !== "string"))
            throw new BadRequestError("'suffix' needs a text prompt: token ids cannot be framed for fill-in-the-middle.", {param: "suffix", code: "invalid_value"});
        // A fill-in-the-middle prompt is cut to leave the completion its room (see prepareInfillPrompt),
        // at most half the context: a larger max_tokens gets the room left, as on every endpoint.
        const generation = generationRequest(request);
        const completionTokens = Math.min(generation.maxTokens ?? defaultCompletionMaxTokens, Math.floor(model.contextLength / 2));
        const infill = fim ? {suffix: request.suffix!, completionTokens} : null;
        const format = await constrainedFormat(model, request);
        const jobs: CompletionJob[] = [];
        for (const [index, promptInput] of prompts.entries()) {
            // Prompts are tokenized one per turn of the event loop, so a long array does not hold up other streams.
            if (index > 0)
                await nextTurn();
            const {prompt, promptText} = await prepare(model, promptInput, infill, prompts.length > 1 ? `prompt[${index}]` : "prompt");
            const options = {
                ...toGenerationOptions(generation, prompt.tokens.length, model.contextLength,
                    {defaultMaxTokens: defaultCompletionMaxTokens, modelDefaults, vocabularySize: model.vocabularySize}),
                format,
                ...(request.logprobs == null ? {} : {logprobs: {top: request.logprobs, prompt: request.echo === true}})
            };
            // OpenAI's order: the choices of prompt i are at i·n … i·n + n − 1. The prompt is scored once, by its first choice.
            for (let choice = 0; choice < perPrompt; choice++) {
                const choiceOptionsFor = choiceOptions(options, choice);
                const scored = choice === 0 || options.logprobs == null ? choiceOptionsFor : {...choiceOptionsFor, logprobs: {top: options.logprobs.top}};
                jobs.push({index: index * perPrompt + choice, choice, promptText, prompt, options: scored});
            }
        }

        const loraScales = request.lora == null ? undefined : resolveLoraScales(model.loraAdapters ?? [], request.lora);
        const lease = await model.acquireSequence(jobs[0]!.prompt, signal, cachePartition, loraScales);
        return {
            identity: newReplyIdentity(request.model, "cmpl"), jobs, echo: request.echo === true, logprobs: request.logprobs != null,
            lease, release: () => lease.release()
        };
    }
}
