import type {CachePartition} from "../../engine/generationOptions.js";
import type {GenerationEvents} from "../../http/replyFormat.js";
import {BadRequestError} from "../../errors.js";
import type {CompletionService} from "../openai-completions/completionService.js";
import type {GenerateRequest} from "./ollamaRequest.js";
import {toSampling} from "./ollamaOptions.js";

/**
 * `POST /api/generate` with `raw: true` or a `suffix`: the prompt as it is, no chat template, or
 * framed for fill-in-the-middle with the model's own FIM tokens (Zed's edit predictions, Continue's
 * autocomplete). It runs through the legacy completions' service, the one path for raw prompts and
 * FIM in chatserve, so a suffix on a model without FIM tokens is the same 400 there and here.
 */
export async function rawGeneration(
    completions: CompletionService, request: GenerateRequest, signal: AbortSignal, cachePartition: CachePartition | undefined
): Promise<{events: GenerationEvents, release(): void}> {
    if ((request.images ?? []).length > 0)
        throw new BadRequestError("'images' need the chat template, which 'raw' and 'suffix' leave out: send images without them.", {param: "images", code: "invalid_value"});
    if (request.format != null && request.format !== "")
        throw new BadRequestError("'format' is not supported with 'raw' or 'suffix': send it without them.", {param: "format", code: "invalid_value"});
    const options = request.options;
    const sampling = toSampling(options);
    const run = await completions.start({
        model: request.model,
        prompt: request.prompt ?? "",
        ...((request.suffix ?? "") !== "" ? {suffix: request.suffix} : {}),
        // Ollama's default is no limit: the room the prompt leaves (a larger max_tokens is cut to it below).
        max_tokens: options?.num_predict != null && options.num_predict > 0 ? options.num_predict : Number.MAX_SAFE_INTEGER,
        stop: options?.stop ?? [],
        temperature: sampling.temperature,
        top_p: sampling.topP,
        seed: sampling.seed,
        presence_penalty: sampling.presencePenalty,
        frequency_penalty: sampling.frequencyPenalty,
        keep_alive: request.keep_alive
    }, signal, cachePartition);
    const job = run.jobs[0]!;
    // What OpenAI's completions have no field for, Ollama's options set on the sampler.
    const extra = {
        ...(sampling.topK != null ? {topK: sampling.topK} : {}),
        ...(sampling.minP != null ? {minP: sampling.minP} : {}),
        ...(sampling.repeatPenalty != null ? {repeatPenalty: sampling.repeatPenalty} : {})
    };
    const options_ = {...job.options, sampling: {...job.options.sampling, ...extra}};
    return {events: run.lease.generate(job.prompt, options_, signal), release: () => run.release()};
}
