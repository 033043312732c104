import {existsSync} from "node:fs";
import {fileURLToPath} from "node:url";

/**
 * The real GGUF files in ../shared/models/ (CI has them beside the checkout; a fresh clone
 * does not). Tests that need them use `describe.runIf(hasSharedModels)`; the tiny models the
 * tests build themselves cover the same behaviour everywhere.
 */
const sharedModelsDir = fileURLToPath(new URL("../../../../shared/models/", import.meta.url));

export const sharedModels = {
    stories260K: `${sharedModelsDir}stories260K.gguf`,
    llama2TinyRandom: `${sharedModelsDir}llama-2-tiny-random.gguf`,
    qwenTools: `${sharedModelsDir}tiny-random-qwen2.5-chatml-tools.gguf`,
    llama32Tools: `${sharedModelsDir}tiny-random-llama3.2-tools.gguf`,
    bertEmbedding: `${sharedModelsDir}tiny-random-bert-embedding.gguf`,
    bench: `${sharedModelsDir}bench-random-smollm2-135m-shape-q8_0.gguf`
} as const;

export const hasSharedModels = Object.values(sharedModels).slice(0, 4).every((file) => existsSync(file));
