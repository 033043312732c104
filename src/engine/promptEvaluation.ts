import type {LlamaContextSequence} from "node-llama-cpp";
import type {ImageEvaluator} from "./vision/imageEvaluation.js";
import type {PreparedPrompt} from "./preparedPrompt.js";
import type {GenerationEvent} from "./generationEvents.js";

/**
 * Evaluates whole batches of the prompt, without outputs, with a progress event after each: an abort
 * or a keep-alive never waits for more than one batch. The rest (at most one batch) is left to go
 * into the same batch as the first sampled token, one decode less per request, as llama-server's
 * single llama_decode. Returns where that rest starts, or undefined once aborted. An image goes in
 * whole, after all the text before it (the prompt always ends in text: the assistant's opening).
 */
export async function* evaluateWholeBatches(
    sequence: LlamaContextSequence, prompt: PreparedPrompt, from: number, signal: AbortSignal, images: ImageEvaluator | undefined
): AsyncGenerator<GenerationEvent, number | undefined> {
    const {tokens} = prompt;
    const batchSize = sequence.context.batchSize;
    const progress = (evaluatedTokens: number): GenerationEvent => ({type: "progress", evaluatedTokens, totalTokens: tokens.length});
    let position = from;
    for (const image of (prompt.images ?? []).filter((candidate) => candidate.start >= from)) {
        for (; position < image.start; position += Math.min(batchSize, image.start - position)) {
            if (signal.aborted)
                return undefined;
            await sequence.evaluateWithoutGeneratingNewTokens(tokens.slice(position, Math.min(position + batchSize, image.start)));
            yield progress(Math.min(position + batchSize, image.start));
        }
        if (images == null)
            throw new Error("this model has no projector to evaluate images with");
        const evaluated = await images.evaluate(sequence, image, signal).then(() => true, (error: unknown) => {
            if (signal.aborted)
                return false;
            throw error;
        });
        if (!evaluated)
            return undefined;
        position = image.start + image.positions;
        yield progress(position);
    }
    for (; ; position += batchSize) {
        if (signal.aborted)
            return undefined;
        if (tokens.length - position <= batchSize)
            return position;
        await sequence.evaluateWithoutGeneratingNewTokens(tokens.slice(position, position + batchSize));
        yield progress(position + batchSize);
    }
}
