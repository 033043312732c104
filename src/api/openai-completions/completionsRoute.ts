import {Router, type Response} from "express";
import type {Logger} from "pino";
import {laterChoice, sumResults, textCompletion, textCompletionChunk, textCompletionUsageChunk} from "./completionFormat.js";
import {CompletionLogprobsBuilder} from "./completionLogprobs.js";
import type {CompletionJob, CompletionRun, CompletionService} from "./completionService.js";
import type {GenerationResult} from "../../engine/types.js";
import {completionRequestSchema} from "./completionRequest.js";
import type {CompletionLogprobs} from "./completionResponse.js";
import {parseBody} from "../parseBody.js";
import {toFinishReason} from "../openai-shared/replyFields.js";
import {abortWhenClientLeaves} from "../../http/clientAbort.js";
import {consumeGeneration} from "../../http/consumeGeneration.js";
import {abandoned, recordUsage} from "../../http/requestLog.js";
import {SseWriter} from "../../http/sseWriter.js";

/** `POST /v1/completions` (legacy text completions and fill-in-the-middle). Prompts of an array run one after another. */
export function completionsRoute(service: CompletionService, logger: Logger, options: {logPrompts: boolean, stopping?: AbortSignal}): Router {
    const router = Router();
    router.post("/v1/completions", async (req, res) => {
        const request = parseBody(completionRequestSchema, req.body);
        res.locals.model = request.model;
        // Prompts (an IDE's code, too) are the user's data: logged only when the operator asked with --log-prompts.
        if (options.logPrompts)
            logger.info({event: "prompt", reqId: res.locals.requestId, model: request.model, prompt: request.prompt, suffix: request.suffix});
        const signal = abortWhenClientLeaves(res, options.stopping);
        const run = await service.start(request, signal);
        try {
            if (request.stream === true)
                await streamCompletions(res, run, request.stream_options?.include_usage === true, signal, logger);
            else
                await sendCompletions(res, run, signal);
        } finally {
            run.release();
        }
    });
    return router;
}

/** The result as usage counts it: a prompt's later choices (`n` > 1) do not count it again. */
function countedResult(job: CompletionJob, result: GenerationResult): GenerationResult {
    return job.choice === 0 ? result : laterChoice(result);
}

/** The offset of a choice's first token: OpenAI's offsets count from the start of the prompt. */
function logprobsFor(run: CompletionRun, job: CompletionJob): CompletionLogprobsBuilder | undefined {
    return run.logprobs ? new CompletionLogprobsBuilder(run.echo ? 0 : job.promptText.length) : undefined;
}

async function sendCompletions(res: Response, run: CompletionRun, signal: AbortSignal): Promise<void> {
    const choices: Array<{text: string, result: GenerationResult, logprobs?: CompletionLogprobs}> = [];
    // A prompt's logprobs come with its first choice (it is scored once); the others echo them.
    let promptLogprobs: Parameters<CompletionLogprobsBuilder["addPrompt"]> | undefined;
    for (const job of run.jobs) {
        let text = run.echo ? job.promptText : "";
        const logprobs = logprobsFor(run, job);
        if (job.choice > 0 && promptLogprobs != null && run.echo)
            logprobs?.addPrompt(...promptLogprobs);
        const result = await consumeGeneration(run.lease.generate(job.prompt, job.options, signal), {
            text: (piece) => {
                text += piece;
                logprobs?.takeForText();
            },
            logprobs: (token) => logprobs?.add(token),
            promptLogprobs: (first, rest) => {
                promptLogprobs = [first, rest];
                logprobs?.addPrompt(first, rest);
            }
        });
        // Aborted: its client left, or the server's stop answered it already. Its tokens still count.
        if (result.finishReason === "abort" || res.headersSent)
            return recordUsage(res, abandoned(sumResults([...choices.map((choice) => choice.result), countedResult(job, result)])));
        choices.push({text, result: countedResult(job, result), ...(logprobs == null ? {} : {logprobs: logprobs.forChoice()})});
    }
    recordUsage(res, sumResults(choices.map((choice) => choice.result)));
    res.json(textCompletion(run.identity, choices));
}

async function streamCompletions(res: Response, run: CompletionRun, includeUsage: boolean, signal: AbortSignal, logger: Logger): Promise<void> {
    const sse = new SseWriter(res);
    sse.open();
    const results: GenerationResult[] = [];
    let promptLogprobs: Parameters<CompletionLogprobsBuilder["addPrompt"]> | undefined;
    try {
        for (const job of run.jobs) {
            const chunk = (text: string, logprobs: CompletionLogprobs | null = null) =>
                sse.send(textCompletionChunk(run.identity, job.index, text, null, includeUsage, logprobs));
            const logprobs = logprobsFor(run, job);
            // With logprobs, the echo waits for the prompt's scores (its first choice's) and carries them.
            if (run.echo && (logprobs == null || job.choice > 0 && promptLogprobs != null))
                chunk(job.promptText, promptLogprobs == null ? null : logprobs!.addPrompt(...promptLogprobs));
            const result = await consumeGeneration(
                run.lease.generate(job.prompt, job.options, signal), {
                    text: (text) => chunk(text, logprobs?.takeForText() ?? null),
                    logprobs: (token) => logprobs?.add(token),
                    promptLogprobs: (first, rest) => {
                        promptLogprobs = [first, rest];
                        if (run.echo)
                            chunk(job.promptText, logprobs?.addPrompt(first, rest) ?? null);
                    },
                    keepAlive: (comment) => sse.comment(comment)
                });
            // Aborted: its client left, or the server's stop ended the stream with its error event.
            if (result.finishReason === "abort" || sse.closed)
                return recordUsage(res, abandoned(sumResults([...results, countedResult(job, result)])));
            sse.send(textCompletionChunk(run.identity, job.index, "", toFinishReason(result.finishReason), includeUsage));
            results.push(countedResult(job, result));
        }
        recordUsage(res, sumResults(results));
        if (includeUsage)
            sse.send(textCompletionUsageChunk(run.identity, results));
        sse.done();
    } catch (error) {
        sse.failWith(error, logger);
    }
}
