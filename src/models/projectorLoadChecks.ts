/**
 * What a projector's (mmproj) contents make llama.cpp's mtmd abort or crash on as it loads and warms
 * up, checked from its header first: tried on a tiny LLaVA projector (llama.cpp as node-llama-cpp
 * 3.22.1 bundles it), `clip.vision.image_size` 0 failed a GGML_ASSERT in ggml_conv_2d, a head count
 * of 0 one in a reshape, and an MLP projector without `mm.2` crashed with SIGSEGV; each took the
 * whole server down. What mtmd refuses with an error of its own (no vision encoder, an unknown
 * projector type, a patch size of 0, a width that does not match the model's) needs nothing here.
 */

type ClipVision = {image_size?: unknown, patch_size?: unknown, embedding_length?: unknown, attention?: {head_count?: unknown}};
type ClipMetadata = {has_vision_encoder?: unknown, projector_type?: unknown, vision?: ClipVision & {projector_type?: unknown}};

/** Throws the reason mtmd would abort on this projector; returns for one it loads (or refuses cleanly). */
export function refuseWhatMtmdAsserts(clip: ClipMetadata | undefined, tensorNames: readonly string[]): void {
    const vision = clip?.vision;
    if (clip?.has_vision_encoder !== true || vision == null)
        return; // mtmd loads no vision tower: it says so itself
    const imageSize = vision.image_size;
    const patchSize = vision.patch_size;
    if (typeof imageSize === "number" && typeof patchSize === "number" && patchSize > 0 && imageSize < patchSize)
        throw new Error(`its image_size (${imageSize}) is smaller than its patch_size (${patchSize}), which makes llama.cpp abort`);
    const heads = vision.attention?.head_count;
    const width = vision.embedding_length;
    if (typeof heads === "number" && typeof width === "number" && (heads <= 0 || width % heads !== 0))
        throw new Error(`its embedding_length (${width}) does not split into its head_count (${heads}) heads, which makes llama.cpp abort`);
    const projectorType = vision.projector_type ?? clip.projector_type;
    if (projectorType === "mlp" || projectorType === "mlp_norm") {
        const has = new Set(tensorNames);
        // LLaVA's MLP is mm.0 then mm.2 (Yi's variant adds mm.1, mm.3, mm.4 instead); mtmd takes every one as optional and uses them unchecked.
        const missing = ["mm.0.weight", ...(has.has("mm.3.weight") ? [] : ["mm.2.weight"])].filter((name) => !has.has(name));
        if (missing.length > 0)
            throw new Error(`its MLP projection lacks ${missing.join(" and ")}, which crashes llama.cpp`);
    }
}
