import path from "node:path";

/**
 * Which vision projector (`mmproj*.gguf`) goes with which model, found in the models folder:
 * - by name: `mmproj-<model>.gguf` (or `<model>-mmproj.gguf`, `<model>.mmproj.gguf`), the
 *   projector's name with "mmproj" and its own precision (`-f16`, `-BF16`, `-Q8_0`) taken out being
 *   the model's name, or its first words (`mmproj-Qwen2.5-VL-3B-Instruct-f16.gguf` pairs with
 *   `Qwen2.5-VL-3B-Instruct-Q4_K_M.gguf`); the longest such name wins;
 * - else, in a subfolder of its own (as `chatserve pull` lays a repository out), the folder's only
 *   projector goes with every model there (`mmproj-F16.gguf` beside `model-Q4_K_M.gguf`).
 * chatserve.json's `mmproj` names one explicitly, over both (models/modelSizing.ts).
 */
export function pairProjector(modelPath: string, projectors: readonly string[], modelsDir: string): string | undefined {
    const folder = path.dirname(modelPath);
    const beside = projectors.filter((projector) => path.dirname(projector) === folder);
    const model = normalized(path.basename(modelPath, ".gguf"));
    const byName = beside
        .map((projector) => ({projector, name: normalized(projectorStem(projector))}))
        .filter(({name}) => name.length > 0 && model.startsWith(name) && (model.length === name.length || model[name.length] === "-"))
        .sort((a, b) => b.name.length - a.name.length)[0];
    if (byName != null)
        return byName.projector;
    const inOwnFolder = path.resolve(folder) !== path.resolve(modelsDir);
    return inOwnFolder && beside.length === 1 ? beside[0] : undefined;
}

/** Whether a .gguf file is a projector rather than a model (as the folder scan and `chatserve pull` tell them). */
export function isProjectorFile(file: string): boolean {
    return path.basename(file).toLowerCase().includes("mmproj");
}

/** The projector's name without "mmproj" and its precision: what the model's name should begin with. */
function projectorStem(projector: string): string {
    return path.basename(projector, ".gguf")
        .replace(/mmproj/i, "")
        .replace(/[-_.](?:f16|f32|bf16|q8_0|q4_k_m|q4_0|q6_k|q5_k_m|model)$/i, "");
}

/** Case and the kind of separator do not matter; where words end does (`m` is not the start of `m2`). */
function normalized(name: string): string {
    return name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");
}
