import {projectorType, projectorTypeProblem, type ClipMetadata} from "./projectorTypeChecks.js";

/**
 * What a projector's (mmproj) contents make llama.cpp's mtmd abort or crash on as it loads, warms
 * up and encodes an image, checked from its header first. Each was tried on a tiny projector in a
 * child process, against the model it pairs with (llama.cpp as node-llama-cpp 3.22.1 bundles it),
 * and took the process down: a GGML_ASSERT, a SIGSEGV or a corrupted heap. The asserts that one
 * projector type's metadata reaches in load_hparams() are in projectorTypeChecks.ts. What mtmd
 * refuses with an error of its own (no encoder, an unknown projector type, a patch size or merge
 * size of 0, a width that does not match the model's, a missing tensor) needs nothing here.
 */

export type ProjectorTensor = {name: string, dimensions: readonly (number | bigint)[]};

/** Throws the reason mtmd would abort on this projector; returns for one it loads (or refuses cleanly). */
export function refuseWhatMtmdAsserts(clip: ClipMetadata | undefined, tensors: readonly ProjectorTensor[]): void {
    const problem = projectorTypeProblem(clip) ?? visionShapeProblem(clip, tensors);
    if (problem != null)
        throw new Error(problem);
}

/** Types whose image is resized to image_size and cut into a fixed grid with a learned position per patch (tried: mlp, gemma3). */
const fixedGridTypes = new Set(["mlp", "mlp_norm", "gemma3"]);
/** Types whose patch convolution was tried against a kernel of another size than patch_size. */
const patchKernelTypes = new Set([...fixedGridTypes, "qwen2vl_merger", "qwen2.5vl_merger", "qwen2.5o"]);

function visionShapeProblem(clip: ClipMetadata | undefined, tensors: readonly ProjectorTensor[]): string | undefined {
    const vision = clip?.vision;
    if (clip?.has_vision_encoder !== true || vision == null)
        return undefined; // mtmd loads no vision tower
    const type = projectorType(clip.projector_type, vision.projector_type);
    const imageSize = vision.image_size;
    const patchSize = vision.patch_size;
    const heads = vision.attention?.head_count;
    const width = vision.embedding_length;
    // Every ViT splits its width into its heads (tried: mlp, gemma3, qwen2vl_merger: a reshape's assert).
    if (typeof heads === "number" && typeof width === "number" && (heads <= 0 || width % heads !== 0))
        return `its embedding_length (${width}) does not split into its head_count (${heads}) heads, which makes llama.cpp abort`;
    if (typeof patchSize !== "number" || patchSize <= 0)
        return undefined; // mtmd refuses it itself

    const tensor = (name: string) => tensors.find((candidate) => candidate.name === name)?.dimensions.map(Number);
    const kernel = tensor("v.patch_embd.weight");
    if (type != null && patchKernelTypes.has(type) && kernel != null && kernel.length === 4) {
        if (kernel[0] !== patchSize || kernel[1] !== patchSize)
            return `its patch convolution is ${kernel[0]}×${kernel[1]} but its patch_size is ${patchSize}, which makes llama.cpp abort`;
        // The convolution makes one vector of the tower's width per patch (a reshape asserts otherwise).
        if (typeof width === "number" && kernel[3] !== width)
            return `its patch convolution makes vectors of ${kernel[3]} but its embedding_length is ${width}, which makes llama.cpp abort`;
    }

    if (type != null && fixedGridTypes.has(type) && typeof imageSize === "number") {
        // ggml_conv_2d asserts on an image smaller than one patch.
        if (imageSize < patchSize)
            return `its image_size (${imageSize}) is smaller than its patch_size (${patchSize}), which makes llama.cpp abort`;
        const side = Math.floor(imageSize / patchSize);
        // One learned position per patch, and one for the class embedding where there is one (get_rows asserts past the end).
        const positions = tensor("v.position_embd.weight")?.[1];
        const expected = side * side + (tensor("v.class_embd") != null ? 1 : 0);
        if (positions != null && positions !== expected)
            return `its image_size (${imageSize}) makes ${expected} patch positions but it holds ${positions}, which makes llama.cpp abort`;
        // Gemma 3 pools scale_factor × scale_factor patches per token: the grid must divide evenly (4 unless told).
        const pool = vision.projector?.scale_factor ?? 4;
        if (type === "gemma3" && typeof pool === "number" && pool > 0 && side % pool !== 0)
            return `its ${side}×${side} patch grid does not pool evenly by its scale_factor (${pool}), which makes llama.cpp abort`;
    }

    if (type === "mlp" || type === "mlp_norm") {
        const has = new Set(tensors.map((candidate) => candidate.name));
        // LLaVA's MLP is mm.0 then mm.2 (Yi's variant adds mm.1, mm.3, mm.4 instead); mtmd takes every one as optional and uses them unchecked (SIGSEGV).
        const missing = ["mm.0.weight", ...(has.has("mm.3.weight") ? [] : ["mm.2.weight"])].filter((name) => !has.has(name));
        if (missing.length > 0)
            return `its MLP projection lacks ${missing.join(" and ")}, which crashes llama.cpp`;
    }
    return undefined;
}
