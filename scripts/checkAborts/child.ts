// One file of scripts/checkAborts/run.ts, in a process of its own: loads it as chatserve does and
// uses it (a model: tokenize text with characters outside most vocabularies, make a context, answer a
// few tokens, then embed a text; a projector: load it against its model, tokenize and encode two images). Prints
// "ran" when all went, "refused: <why>" when llama.cpp refused it with an error; an abort ends the
// process by its signal (or a status of 134), which the parent reads.
import {LlamaChatSession} from "node-llama-cpp";
import {startLlamaRuntime} from "../../src/engine/llamaRuntime.js";
import {mediaMarker} from "../../src/engine/vision/mediaMarker.js";
import {NativeProjector} from "../../src/engine/vision/nativeVision.js";
import {createLogger} from "../../src/logger.js";
import {encodePng, gradient} from "../../test/fixtures/images.js";

const [modelPath, projectorPath] = process.argv.slice(2);
const runtime = await startLlamaRuntime({gpu: "cpu", threads: 1, decodeThreads: undefined, flashAttention: "auto"}, createLogger("silent"));
try {
    const model = await runtime.llama.loadModel({modelPath: modelPath!});
    if (projectorPath == null) {
        model.tokenize("Café, 日本, naïve\n", true);
        const context = await model.createContext({contextSize: 256});
        await new LlamaChatSession({contextSequence: context.getSequence()}).prompt("Hello, café?", {maxTokens: 4});
        await context.dispose();
        await (await model.createEmbeddingContext({contextSize: 128})).getEmbeddingFor("Hello, café?");
    } else {
        const projector = await NativeProjector.load(runtime.llama, model, projectorPath, {threads: 1, marker: mediaMarker, decodes: runtime.imageDecodes});
        for (const [width, height] of [[64, 64], [40, 24]] as const) {
            const image = await projector.tokenize(encodePng(width, height, gradient(width, height)), `${width}x${height}`, AbortSignal.timeout(60_000));
            for (const part of image.parts)
                if (part.type === "image")
                    await projector.encode(image.handle, part.index, AbortSignal.timeout(60_000));
        }
    }
    console.log("ran");
} catch (error) {
    console.log(`refused: ${(error as Error).message}`);
}
process.exit(0);
