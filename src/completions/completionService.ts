import {setImmediate as nextTurn} from "node:timers/promises";
import {toGenerationOptions} from "../chat/generationSettings.js";
import type {GenerationOptions, PreparedPrompt, SequenceLease} from "../engine/types.js";
import {BadRequestError} from "../errors.js";
import type {ModelSource} from "../models/modelRegistry.js";
import {defaultCompletionMaxTokens, type CompletionRequest} from "../protocol/completionRequest.js";
import {newReplyIdentity, type ReplyIdentity} from "../protocol/replyFields.js";
import {rejectUnsupportedCompletionFields} from "../protocol/unsupportedFields.js";

/** One choice to generate: a prompt (one per `prompt` array entry) and its options. */
export type CompletionJob = {index: number, promptText: string, prompt: PreparedPrompt, options: GenerationOptions};

/** A leased sequence plus the prompts to run on it, one after another; `release()` in a finally. */
export type CompletionRun = {identity: ReplyIdentity, jobs: CompletionJob[], echo: boolean, lease: SequenceLease, release(): void};

/**
 * Legacy completions: raw prompts (no template), or fill-in-the-middle when `suffix` is sent.
 * Like chat, every check that can fail with a status happens before anything is sent.
 */
export class CompletionService {
    public constructor(private readonly models: ModelSource) {}

    public async start(request: CompletionRequest, signal: AbortSignal): Promise<CompletionRun> {
        rejectUnsupportedCompletionFields(request);
        const model = await this.models.acquire(request.model, "completion");
        const fim = request.suffix != null && (request.suffix !== "" || model.supportsInfill);
        if (fim && !model.supportsInfill)
            throw new BadRequestError(`The model '${request.model}' has no fill-in-the-middle tokens, so 'suffix' cannot be used with it.`,
                {param: "suffix", code: "fim_not_supported"});

        const texts = typeof request.prompt === "string" ? [request.prompt] : request.prompt;
        const jobs: CompletionJob[] = [];
        for (const [index, promptText] of texts.entries()) {
            // Prompts are tokenized one per turn of the event loop, so a long array does not hold up other streams.
            if (index > 0)
                await nextTurn();
            const prompt = await (fim ? model.prepareInfill(promptText, request.suffix!) : model.prepareText(promptText));
            const options = toGenerationOptions(request, prompt.tokens.length, model.contextLength,
                {defaultMaxTokens: defaultCompletionMaxTokens, promptParam: "prompt"});
            jobs.push({index, promptText, prompt, options});
        }

        const lease = await model.acquireSequence(jobs[0]!.prompt, signal);
        return {identity: newReplyIdentity(request.model, "cmpl"), jobs, echo: request.echo === true, lease, release: () => lease.release()};
    }
}
