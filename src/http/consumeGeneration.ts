import type {GenerationEvent, GenerationResult} from "../engine/types.js";

/**
 * Runs a generation to its end, handing each text piece on as it comes (straight into an SSE
 * chunk, or onto a string) and prompt-processing progress as a keep-alive comment.
 */
export async function consumeGeneration(
    events: AsyncGenerator<GenerationEvent, GenerationResult>,
    onText: (text: string) => void,
    onKeepAlive: (comment: string) => void = () => {}
): Promise<GenerationResult> {
    for (let step = await events.next(); ; step = await events.next()) {
        if (step.done === true)
            return step.value;
        if (step.value.type === "text")
            onText(step.value.text);
        else
            onKeepAlive(`processing prompt ${step.value.evaluatedTokens}/${step.value.totalTokens}`);
    }
}
