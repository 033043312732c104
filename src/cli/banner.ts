import fs from "node:fs";
import path from "node:path";
import type {Config} from "../config.js";
import type {RunningServer} from "../server.js";

/** The start-up summary a person reads: where to point clients, what runs the models, which models there are. */
export function printBanner(config: Config, server: RunningServer): void {
    const models = server.registry.list();
    const lines = [
        `chatserve is listening on ${server.url}`,
        `backend: ${server.backend} (${server.openmp ? "OpenMP build, " : ""}${server.threads} inference thread${server.threads === 1 ? "" : "s"}, ${server.decodeThreads} for decoding), ` +
        `${config.parallel} parallel sequence${config.parallel === 1 ? "" : "s"} per model` +
        (config.apiKeys.length > 0 ? `, API key required` : ""),
        `models in ${path.resolve(config.modelsDir)}:`
    ];
    if (models.length === 0)
        lines.push(
            // A mistyped --models path would otherwise look like an empty folder.
            fs.existsSync(config.modelsDir)
                ? "  (none yet) Copy a .gguf file into that folder, e.g. one downloaded from huggingface.co;"
                : "  (none yet: that folder does not exist) Create it and copy a .gguf file into it, or check --models;",
            "  chatserve picks it up without a restart."
        );
    for (const model of models)
        lines.push(model.status === "unavailable"
            ? `  - ${model.id}: unavailable (${model.error})`
            : `  - ${model.id} (${model.architecture}, ${model.context_length} tokens, ${model.capabilities.join(", ")})`);

    process.stdout.write(lines.join("\n") + "\n");
}
