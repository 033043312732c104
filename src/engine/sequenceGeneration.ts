import type {LlamaContextSequence, Token} from "node-llama-cpp";
import {imageAround, type ImageEvaluator} from "./vision/imageEvaluation.js";
import {promptCells} from "./vision/imagePrompt.js";
import {alignPromptWithCache} from "./cacheAlignment.js";
import type {DecodeSteps} from "./decodeSteps.js";
import {scorePrompt} from "./promptLogprobs.js";
import {evaluateWholeBatches} from "./promptEvaluation.js";
import {IncrementalDetokenizer, type DetokenizeFn} from "./incrementalDetokenizer.js";
import {createReplyShaper} from "./reply/createReplyShaper.js";
import type {ReplyGrammars} from "./reply/grammars.js";
import {samplingFor} from "./samplerOptions.js";
import {dropUnfedTail} from "./speculation/draftRollback.js";
import {nextDraft, planSpeculation, settleDraft, speculationReport, type SpeculationPlan} from "./speculation/speculationPlan.js";
import type {PreparedPrompt} from "./preparedPrompt.js";
import type {GenerationOptions} from "./generationOptions.js";
import type {FinishReason, GenerationEvent, GenerationResult} from "./generationEvents.js";

/** What a generation uses of its model and context besides its own sequence; `images` for a model with a projector. */
export type GenerationEngine = {steps: DecodeSteps, detokenize: DetokenizeFn, grammars: ReplyGrammars, images?: ImageEvaluator};

/**
 * The token each sequence sampled last and never evaluated (a generation stops before feeding its
 * final token back). The next turn's prompt holds it too, so aligning against it lets that turn
 * reuse the whole reply even when the text only lines up at the reply's end.
 */
const unevaluatedTail = new WeakMap<LlamaContextSequence, Token>();

/** The sequence's tokens were replaced (another's prefix copied in): its last sampled token no longer follows them. */
export function forgetUnevaluatedTail(sequence: LlamaContextSequence): void {
    unevaluatedTail.delete(sequence);
}

/**
 * Generates a reply on one sequence: reuses the cached prefix (earlier replies included), evaluates
 * the rest of the prompt (its last part in the same batch as the first sampled token), then streams
 * the sampler's tokens, shaped into the requested format (text with stop sequences applied, JSON,
 * tool calls), counting every token of the reply. The prompt's batches: promptEvaluation.ts; the
 * sampler's options: samplerOptions.ts; the decode loop itself: decodeSteps.ts.
 */
export async function* generateOnSequence(
    sequence: LlamaContextSequence,
    {steps, detokenize, grammars, images}: GenerationEngine,
    prepared: PreparedPrompt,
    options: GenerationOptions,
    signal: AbortSignal
): AsyncGenerator<GenerationEvent, GenerationResult> {
    // A client's own token ids are evaluated as sent; a rendered prompt may be re-spelled in the cache's tokens.
    // The prompt's own logprobs are those of the tokens it was rendered into.
    const scoresPrompt = options.logprobs?.prompt === true;
    const tokens = prepared.exactTokens === true || scoresPrompt ? prepared.tokens : reuseCachedTokens(sequence, prepared.tokens, detokenize, options.maxTokens);
    const prompt = {...prepared, tokens};
    // Whatever happens next, the sequence's tokens change: the tail no longer follows them.
    unevaluatedTail.delete(sequence);
    const promptTokens = promptCells(prompt);
    const scored = scoresPrompt ? await scorePrompt(sequence, prompt.tokens, options.logprobs!.top) : undefined;
    // Keep at most all but the last prompt token: the sampler needs logits from a fresh evaluation.
    await sequence.adaptStateToTokens(prompt.tokens.slice(0, -1), false);
    // Never part of an image: it is evaluated whole or not at all.
    const cutImage = imageAround(prompt.images, sequence.nextTokenIndex);
    if (cutImage != null)
        await sequence.eraseContextTokenRanges([{start: cutImage.start, end: sequence.nextTokenIndex}]);
    const cachedTokens = scored == null ? promptCells({tokens: prompt.tokens.slice(0, sequence.nextTokenIndex), images: imagesBefore(prompt, sequence.nextTokenIndex)}) : 0;
    const shaper = createReplyShaper(prompt, options, grammars);
    // Metrics' time to first token and per output token: two clock reads per reply, none per token.
    let firstTokenAt: number | undefined;
    // Drafts to verify, where this generation can take them: engine/speculation/.
    let plan: SpeculationPlan | undefined;
    const result = (finishReason: FinishReason, completionTokens: number): GenerationResult => ({
        finishReason, promptTokens, cachedTokens, completionTokens, timing: {firstTokenAt, endedAt: performance.now()},
        // A reasoning model's reply says how much of it was thought, none when its format let it not think.
        ...(prompt.thought == null ? {} : {reasoningTokens: Math.min(shaper.reasoningTokens ?? 0, completionTokens)}),
        ...(finishReason === "stop" && shaper.stopSequence != null ? {stopSequence: shaper.stopSequence} : {}),
        ...speculationReport(plan, sequence, options)
    });

    // A forced opening (a tool call's) that does not fit the budget is not evaluated at all (it could
    // overflow the context), nor is the prompt: the reply is that opening cut at max_tokens, the
    // call named with no arguments yet, as OpenAI cuts one.
    if (shaper.opening.tokens.length >= options.maxTokens) {
        yield* shaper.opening.events;
        return result("length", options.maxTokens);
    }
    if (scored != null)
        yield {type: "promptLogprobs", ...scored};
    const position = yield* evaluateWholeBatches(sequence, prompt, sequence.nextTokenIndex, signal, images);
    if (position == null)
        return result("abort", 0);
    const detokenizer = new IncrementalDetokenizer(detokenize, prompt.tokens, shaper.shownTokens);
    const stopTokens = new Set(prompt.stopTokens);
    // Sampled and forced tokens alike are the reply's, for the budget and for usage.
    const generated: Token[] = [...shaper.opening.tokens];
    detokenizer.skip(shaper.opening.tokens);
    yield* shaper.opening.events;

    const [sampling, changesPerToken] = samplingFor(sequence.model, options, shaper, grammars, generated);
    const sampler = steps.sampler(sequence, sampling, changesPerToken, options.logprobs?.top);
    plan = planSpeculation(sequence, prompt.tokens, options, changesPerToken, steps.speculation, steps.draftCost);
    let feed: Token[] = [...prompt.tokens.slice(position), ...shaper.opening.tokens];
    // The last sampled token: it is in the sequence only once the next step feeds it back.
    let unevaluated: Token | undefined;
    try {
        for (;;) {
            // A drafted step keeps what plain steps would have sampled, one token or several: each goes through the loop below.
            const planned = plan == null ? [] : nextDraft(plan, options.maxTokens - generated.length - 1, steps.streams);
            const draft = Array.isArray(planned) ? planned : await planned;
            const kept = draft.length === 0 ? [await steps.step(sequence, feed, sampler)] : await steps.speculate(sequence, feed, draft, sampler);
            if (plan != null)
                settleDraft(plan, kept);
            firstTokenAt ??= performance.now();
            unevaluated = kept.at(-1);
            if (signal.aborted)
                return result("abort", generated.length);
            // Ending at a drafted run's token: what the run fed after it leaves the cache, as if never fed; it is the unevaluated token.
            const endAt = async (index: number) => {
                unevaluated = kept[index];
                await dropUnfedTail(sequence, kept.length - 1 - index);
            };
            for (const [index, token] of kept.entries()) {
                if (sequence.model.isEogToken(token) || stopTokens.has(token)) {
                    await endAt(index);
                    const {events, finish} = shaper.end(detokenizer.flush());
                    yield* events;
                    return result(finish!, generated.length);
                }

                generated.push(token);
                if (sampler.logprob != null)
                    yield {type: "logprobs", token: sampler.logprob};
                const {events, forced = [], finish} = shaper.push(detokenizer.push(token), options.maxTokens - generated.length);
                yield* events;
                if (finish != null) {
                    await endAt(index);
                    return result(finish, generated.length);
                }
                if (generated.length + forced.length >= options.maxTokens) {
                    await endAt(index);
                    // Forced markup counts as the reply's, as everywhere: cut at max_tokens, the reply spent it all.
                    yield* shaper.cut(detokenizer.flush());
                    return result("length", options.maxTokens);
                }
                generated.push(...forced);
                detokenizer.skip(forced);
                feed = [token, ...forced];
            }
        }
    } finally {
        if (unevaluated == null)
            unevaluatedTail.delete(sequence);
        else
            unevaluatedTail.set(sequence, unevaluated);
        sampler.dispose();
    }
}

/** The prompt's images that lie wholly before `position`. */
function imagesBefore(prompt: PreparedPrompt, position: number) {
    return prompt.images?.filter((image) => image.start + image.positions <= position);
}

/**
 * The prompt with earlier replies spelled in the tokens the model sampled, where the sequence holds
 * them (re-rendered text often tokenizes differently), so follow-up turns reuse the whole cached
 * conversation. A finer split can make the prompt longer: taken only while the reply still fits.
 */
function reuseCachedTokens(sequence: LlamaContextSequence, tokens: Token[], detokenize: DetokenizeFn, maxTokens: number): Token[] {
    const tail = unevaluatedTail.get(sequence);
    const cached = tail == null ? sequence.contextTokens : [...sequence.contextTokens, tail];
    const aligned = alignPromptWithCache(cached, tokens, (span) => detokenize(span, []));
    return aligned.length <= tokens.length || aligned.length + maxTokens <= sequence.contextSize ? aligned : tokens;
}
