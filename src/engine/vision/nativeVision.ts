import {readGgufFileInfo, type Llama, type LlamaModel} from "node-llama-cpp";
import type {ImageDecodePool} from "./imageDecodePool.js";
import {keptImages, tokenizedImageSize} from "./imageMemory.js";
import {TokenizedImageCache} from "./tokenizedImageCache.js";

/**
 * chatserve's native vision calls (native/vision.cpp), compiled into node-llama-cpp's addon by
 * `npm install` on Linux CPU machines (scripts/visionBuild.mjs) or by `npm run build:native` for a
 * GPU backend. node-llama-cpp's prebuilt addons have none: `visionSupport` says why not.
 */

/** One piece of an image's prompt: the projector's wrapper text (`<start_of_image>`), or image embeddings. */
export type ImagePart =
    | {type: "text", tokens: Uint32Array}
    | {
        type: "image",
        /** The chunk's index, for `encode` and `decode`. */
        index: number,
        /** Embeddings (KV cells) it takes. */
        tokens: number,
        /** Positions it advances the sequence by: fewer than its cells for M-RoPE models (Qwen2-VL). */
        positions: number,
        /** Decoded with non-causal attention (Gemma 3): must fit one micro-batch. */
        nonCausal: boolean,
        /** SHA-256 of the image file's bytes. */
        id: string
    };

/** An image made ready for one projector: its parts, and the native handle that owns them (freed by the GC). */
export type TokenizedImage = {handle: unknown, parts: ImagePart[]};

type NativeVisionObject = {
    load(): Promise<{mrope: boolean}>,
    tokenize(bytes: Uint8Array): Promise<TokenizedImage>,
    encode(handle: unknown, index: number, encodeId: number): Promise<void>,
    abortEncode(encodeId: number): void,
    decode(nativeContext: unknown, handle: unknown, index: number, sequenceId: number, position: number, from: number, count: number): Promise<void>,
    discard(nativeContext: unknown, sequenceId: number, position: number): void,
    dispose(): void
};

type NativeVisionClass = new (
    nativeModel: unknown, projectorPath: string, options: {threads: number, useGpu: boolean, flashAttention: boolean, marker: string}
) => NativeVisionObject;

function visionClass(llama: Llama): NativeVisionClass | undefined {
    const binding = (llama as unknown as {_bindings?: {ChatserveVision?: unknown}})._bindings?.ChatserveVision;
    return typeof binding === "function" ? binding as NativeVisionClass : undefined;
}

/** Whether this addon can serve images, and if not, why (the banner and the 400 say it). */
export function visionSupport(llama: Llama): {available: true} | {available: false, reason: string} {
    if (visionClass(llama) != null)
        return {available: true};
    const reason = llama.gpu !== false
        ? `node-llama-cpp's prebuilt ${llama.gpu} binaries have no image support; build them with it: npm run build:native -- --gpu ${llama.gpu} (README, "Image input")`
        : "this install's llama.cpp build has no image support (it was not compiled from source here, or CHATSERVE_VISION=off; README, \"Image input\")";
    return {available: false, reason};
}

let nextEncodeId = 1;

/**
 * A vision projector (mmproj GGUF) loaded against one loaded model. Loading, tokenizing and
 * encoding run on native threads of their own, so that other streams keep decoding meanwhile
 * (tokenizing through the server's pool of image decodes, imageDecodePool.ts); `decode` runs on
 * node-llama-cpp's worker like a batch and must be called under the context lock.
 */
export class NativeProjector {
    private constructor(
        private readonly native: NativeVisionObject,
        public readonly mrope: boolean,
        /** The server's image decodes, which every projector's tokenize takes a slot of. */
        private readonly decodes: ImageDecodePool,
        private readonly recent: TokenizedImageCache<TokenizedImage>
    ) {}

    public static async load(
        llama: Llama, model: LlamaModel, projectorPath: string, options: {threads: number, marker: string, decodes: ImageDecodePool}
    ): Promise<NativeProjector> {
        const Vision = visionClass(llama);
        if (Vision == null)
            throw new Error("this llama.cpp build has no image support");
        const nativeModel = (model as unknown as {_model?: unknown})._model;
        const header = await readProjectorHeader(projectorPath);
        // mtmd pads its image to a block counted from the text before it in the same tokenize call;
        // chatserve tokenizes an image apart from its text (as mtmd's other projectors allow).
        if (header.projectorType === "deepseek4v")
            throw new Error("DeepSeek-V4's projector lines an image up with the text before it, which chatserve does not give it: not supported");
        const flashAttention = header.patches != null && header.patches <= maxFlashAttentionPatches;
        const native = new Vision(nativeModel, projectorPath, {threads: options.threads, useGpu: llama.gpu !== false, flashAttention, marker: options.marker});
        const {mrope} = await native.load();
        const sizeOf = (image: TokenizedImage) => tokenizedImageSize(image, {embedding: model.embeddingVectorSize, patch: header.patchSize ?? 14, patches: header.patches ?? 0});
        const recent = new TokenizedImageCache<TokenizedImage>(keptImages, sizeOf);
        return new NativeProjector(native, mrope, options.decodes, recent);
    }

    /**
     * Decodes the file (PNG, JPEG, GIF, BMP) and splits it into the projector's parts, when the
     * server's pool of decodes has a slot for it (a 503 when its queue is full); rejects with the
     * signal's reason once aborted (a decode not started then never starts). The last few images are
     * kept by their SHA-256, with their embeddings once encoded: the next turn of a conversation
     * sends its image again, and reading and resizing it took 170 ms of a cached follow-up's 240
     * (LLaVA 1.5's shapes, 2 cores); an image the cache lost is not encoded again.
     */
    public tokenize(bytes: Uint8Array, id: string, signal: AbortSignal): Promise<TokenizedImage> {
        return this.recent.get(id, signal, (decodeSignal) => this.decodes.run(() => this.native.tokenize(bytes), decodeSignal));
    }

    /** Runs the vision tower on one image chunk; an abort stops it at its next check and rejects with an AbortError. */
    public async encode(handle: unknown, index: number, signal: AbortSignal): Promise<void> {
        signal.throwIfAborted();
        const encodeId = nextEncodeId++;
        const abort = () => this.native.abortEncode(encodeId);
        signal.addEventListener("abort", abort, {once: true});
        try {
            await this.native.encode(handle, index, encodeId);
        } catch (error) {
            if (signal.aborted)
                throw signal.reason;
            throw error;
        } finally {
            signal.removeEventListener("abort", abort);
        }
    }

    /**
     * Embeddings `from` to `from + count` of the encoded chunk whose first position in the sequence is
     * `position` (a non-causal chunk goes whole). A failed slice removes the whole image.
     */
    public decode(nativeContext: unknown, handle: unknown, index: number, sequenceId: number, position: number, from: number, count: number): Promise<void> {
        return this.native.decode(nativeContext, handle, index, sequenceId, position, from, count);
    }

    /** Removes the sequence's cells from `position` on: the slices of an image whose request ended before it was whole. */
    public discard(nativeContext: unknown, sequenceId: number, position: number): void {
        this.native.discard(nativeContext, sequenceId, position);
    }

    /** Frees the projector; before the model it was loaded against, and with no call running. */
    public dispose(): void {
        this.recent.clear();
        this.native.dispose();
    }
}

/**
 * What the projector's header says: its type, and how many patches its tower sees. Flash attention
 * on the CPU (a GPU always may) was measured faster for LLaVA 1.5's 577 patches (an image in 2.75 s
 * instead of 3.2 on 2 cores) and 3× slower for Gemma 3's 4,096 (440 s instead of 142): on for
 * towers of at most 1,024 patches per image (image side over patch side, squared), off above, and
 * off when the header does not say.
 */
async function readProjectorHeader(projectorPath: string): Promise<{projectorType?: string, patches?: number, patchSize?: number}> {
    const {metadata} = await readGgufFileInfo(projectorPath, {readTensorInfo: false});
    const clip = (metadata as unknown as {clip?: {projector_type?: unknown, vision?: {image_size?: unknown, patch_size?: unknown, projector_type?: unknown}}}).clip;
    const projectorType = clip?.vision?.projector_type ?? clip?.projector_type;
    const imageSize = Number(clip?.vision?.image_size);
    const patchSize = Number(clip?.vision?.patch_size);
    return {
        ...(typeof projectorType === "string" ? {projectorType} : {}),
        ...(imageSize > 0 && patchSize > 0 ? {patches: (imageSize / patchSize) ** 2} : {}),
        ...(patchSize > 0 ? {patchSize} : {})
    };
}

const maxFlashAttentionPatches = 1024;
