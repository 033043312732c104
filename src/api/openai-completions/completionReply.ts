import type {GenerationResult} from "../../engine/generationEvents.js";
import type {JsonReplyFormat, StreamReplyFormat} from "../../http/replyFormat.js";
import type {SseWriter} from "../../http/sseWriter.js";
import {toFinishReason} from "../openai-shared/replyFields.js";
import {laterChoice, sumResults, textCompletion, textCompletionChunk, textCompletionUsageChunk} from "./completionFormat.js";
import {CompletionLogprobsBuilder} from "./completionLogprobs.js";
import type {CompletionLogprobs} from "./completionResponse.js";
import type {CompletionJob, CompletionRun} from "./completionService.js";

/** A prompt's logprobs, as its first choice scored them (it is scored once); the others echo them. */
type PromptLogprobs = Parameters<CompletionLogprobsBuilder["addPrompt"]>;

/** Legacy completions, not streamed: every choice of every prompt, in OpenAI's order, in one body. */
export function completionBody(run: CompletionRun, signal: AbortSignal): JsonReplyFormat {
    const choices: Array<{text: string, result: GenerationResult, logprobs?: CompletionLogprobs}> = [];
    let promptLogprobs: PromptLogprobs | undefined;
    return {
        choices: run.jobs.length,
        usage: (results) => usageOf(run, results),
        startChoice: (index) => {
            const job = run.jobs[index]!;
            let text = run.echo ? job.promptText : "";
            const logprobs = logprobsFor(run, job);
            if (job.choice > 0 && promptLogprobs != null && run.echo)
                logprobs?.addPrompt(...promptLogprobs);
            return {
                events: run.lease.generate(job.prompt, job.options, signal),
                handlers: {
                    text: (piece) => {
                        text += piece;
                        logprobs?.takeForText();
                    },
                    logprobs: (token) => logprobs?.add(token),
                    promptLogprobs: (first, rest) => {
                        promptLogprobs = [first, rest];
                        logprobs?.addPrompt(first, rest);
                    }
                },
                end: (result) => choices.push({text, result: countedResult(job, result), ...(logprobs == null ? {} : {logprobs: logprobs.forChoice()})})
            };
        },
        body: () => textCompletion(run.identity, choices)
    };
}

/** Legacy completions streamed: each choice's chunks (its `index` in OpenAI's order), then usage when asked for, then `[DONE]`. */
export function completionStream(sse: SseWriter, run: CompletionRun, includeUsage: boolean, signal: AbortSignal): StreamReplyFormat {
    let promptLogprobs: PromptLogprobs | undefined;
    return {
        choices: run.jobs.length,
        usage: (results) => usageOf(run, results),
        startChoice: (index) => {
            const job = run.jobs[index]!;
            const chunk = (text: string, logprobs: CompletionLogprobs | null = null) =>
                sse.send(textCompletionChunk(run.identity, job.index, text, null, includeUsage, logprobs));
            const logprobs = logprobsFor(run, job);
            // With logprobs, the echo waits for the prompt's scores (its first choice's) and carries them.
            if (run.echo && (logprobs == null || job.choice > 0 && promptLogprobs != null))
                chunk(job.promptText, promptLogprobs == null ? null : logprobs!.addPrompt(...promptLogprobs));
            return {
                events: run.lease.generate(job.prompt, job.options, signal),
                handlers: {
                    text: (text) => chunk(text, logprobs?.takeForText() ?? null),
                    logprobs: (token) => logprobs?.add(token),
                    promptLogprobs: (first, rest) => {
                        promptLogprobs = [first, rest];
                        if (run.echo)
                            chunk(job.promptText, logprobs?.addPrompt(first, rest) ?? null);
                    }
                },
                end: (result) => sse.send(textCompletionChunk(run.identity, job.index, "", toFinishReason(result.finishReason), includeUsage))
            };
        },
        finish: (usage) => {
            if (includeUsage)
                sse.send(textCompletionUsageChunk(run.identity, usage));
            sse.done();
        }
    };
}

/** The choices' usage: the prompts' tokens once each (not again for a prompt's later choices), every choice's generated tokens. */
function usageOf(run: CompletionRun, results: readonly GenerationResult[]): GenerationResult {
    return sumResults(results.map((result, index) => countedResult(run.jobs[index]!, result)));
}

/** The result as usage counts it: a prompt's later choices (`n` > 1) do not count it again. */
function countedResult(job: CompletionJob, result: GenerationResult): GenerationResult {
    return job.choice === 0 ? result : laterChoice(result);
}

/** The offset of a choice's first token: OpenAI's offsets count from the start of the prompt. */
function logprobsFor(run: CompletionRun, job: CompletionJob): CompletionLogprobsBuilder | undefined {
    return run.logprobs ? new CompletionLogprobsBuilder(run.echo ? 0 : job.promptText.length) : undefined;
}
