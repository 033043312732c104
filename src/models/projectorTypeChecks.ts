/**
 * The asserts one projector type's own metadata reaches in clip.cpp (load_hparams(), and the
 * Qwen2-VL graph), checked from the header: each was tried in a child process on a tiny projector
 * given that type and the metadata named, and aborted it as the projector loaded or encoded its
 * first image. Audio towers count too: mtmd loads every tower a file has, whatever chatserve uses.
 */

type ClipTower = {projector_type?: unknown, block_count?: unknown, embedding_length?: unknown, attention?: {head_count?: unknown}};
type ClipVision = ClipTower & {
    image_size?: unknown, patch_size?: unknown,
    projector?: {scale_factor?: unknown}, spatial_merge_size?: unknown, preproc_min_tiles?: unknown, preproc_max_tiles?: unknown,
    wa_pattern_mode?: unknown
};
type ClipAudio = ClipTower & {subsampling_factor?: unknown, conv_kernel_size?: unknown, chunk_size?: unknown};
export type ClipMetadata = {
    has_vision_encoder?: unknown, has_audio_encoder?: unknown, projector_type?: unknown, vision?: ClipVision, audio?: ClipAudio
};

/** The reason mtmd would abort on this projector type's metadata, or undefined. */
export function projectorTypeProblem(clip: ClipMetadata | undefined): string | undefined {
    const vision = clip?.has_vision_encoder === true ? clip.vision : undefined;
    const audio = clip?.has_audio_encoder === true ? clip.audio : undefined;
    return (vision == null ? undefined : visionTypeProblem(projectorType(clip!.projector_type, vision.projector_type), vision))
        ?? (audio == null ? undefined : audioTypeProblem(projectorType(clip!.projector_type, audio.projector_type), audio));
}

function visionTypeProblem(type: string | undefined, vision: ClipVision): string | undefined {
    const abort = (what: string) => `its ${type} projector's ${what}, which makes llama.cpp abort`;
    switch (type) {
        case "internvl": {
            const [min, max] = [int(vision.preproc_min_tiles, 1), int(vision.preproc_max_tiles, 12)];
            return min <= max && max < 2 ** 31 - 1 ? undefined : abort(`preproc_min_tiles (${min}) is over its preproc_max_tiles (${max})`);
        }
        case "deepseekocr":
        case "deepseekocr2": {
            const [min, max] = [int(vision.preproc_min_tiles, 2), int(vision.preproc_max_tiles, type === "deepseekocr" ? 9 : 6)];
            return min >= 0 && min <= max && max <= 256 ? undefined : abort(`tiles (${min} to ${max}) are not within 0 to 256, least first`);
        }
        case "minicpmv4_6": {
            const merge = int(vision.projector?.scale_factor, 4);
            return merge === 2 || merge === 4 ? undefined : abort(`scale_factor is ${merge}, not 2 or 4`);
        }
        case "minimax_m3":
            return int(vision.spatial_merge_size, 2) > 0 ? undefined : abort("spatial_merge_size is 0");
        case "mimovl": {
            const pattern = vision.wa_pattern_mode;
            const layers = vision.block_count;
            return !Array.isArray(pattern) || typeof layers !== "number" || pattern.length === layers
                ? undefined
                : abort(`wa_pattern_mode has ${pattern.length} entries for ${layers} layers`);
        }
        // The graph merges 2×2 patches whatever the merge size says; mtmd's resize follows the merge size
        // (3: qwen2vl.cpp's `img.nx() % (patch_size * 2)` assert; 1: a corrupted heap).
        case "qwen2vl_merger":
        case "qwen2.5vl_merger":
        case "qwen2.5o": {
            const merge = int(vision.spatial_merge_size, 2);
            if (merge !== 0 && merge !== 2)
                return abort(`spatial_merge_size is ${merge}, not the 2 its merger is built for`);
            // Without a block its position input is left unused, which mtmd aborts on at warm-up.
            if (vision.block_count === 0)
                return abort("block_count is 0");
            // Its ViT rotates half of each head, in four sections of a quarter: ggml's rope needs an
            // even half and a section above 0 (heads of 6 and of 1 aborted at the first image or warm-up).
            const [width, heads] = [vision.embedding_length, vision.attention?.head_count];
            const head = typeof width === "number" && typeof heads === "number" && heads > 0 ? Math.floor(width / heads) : undefined;
            return head == null || (head >= 4 && Math.floor(head / 2) % 2 === 0) ? undefined : abort(`heads of ${head} cannot be rotated (half of a head must be even, a quarter above 0)`);
        }
        default:
            return undefined;
    }
}

function audioTypeProblem(type: string | undefined, audio: ClipAudio): string | undefined {
    const abort = (what: string) => `its ${type} audio projector's ${what}, which makes llama.cpp abort`;
    if (type === "parakeet") {
        const factor = audio.subsampling_factor;
        const kernel = audio.conv_kernel_size;
        if (typeof factor === "number" && factor !== 8)
            return abort(`subsampling_factor is ${factor}, not 8`);
        if (typeof kernel === "number" && !(kernel > 0 && kernel % 2 === 1))
            return abort(`conv_kernel_size is ${kernel}, not a positive odd number`);
    }
    const chunk = audio.chunk_size;
    if (type === "granite_speech" && typeof chunk === "number" && !(chunk > 0 && chunk <= 8192))
        return abort(`chunk_size is ${chunk}, not 1 to 8192`);
    return undefined;
}

/** clip.cpp's load_hparams(): `clip.projector_type`, or when it is empty the tower's own key. */
export function projectorType(shared: unknown, own: unknown): string | undefined {
    const type = typeof shared === "string" && shared !== "" ? shared : own;
    return typeof type === "string" ? type : undefined;
}

/** A count as clip.cpp reads it (absent: its default). */
function int(value: unknown, fallback: number): number {
    return typeof value === "number" ? value : fallback;
}
