import {realpathSync, statSync} from "node:fs";
import {keptImages} from "../engine/vision/imageMemory.js";
import {planContext, type ContextPlan, type ContextSettings} from "./contextPlan.js";
import type {MemoryFootprint} from "./memoryEstimate.js";
import type {ModelDescriptor} from "./modelDescriptor.js";
import {noSettings, settingsForModel, type LoadedSettings, type ResolvedModelSettings} from "./settingsFile.js";

/**
 * What each model file is served with and what it takes: its plan (context, parallel sequences,
 * template: chatserve.json over the flags) and its memory (what it took when it last loaded, else
 * the estimate). Each is worked out once per file: the descriptor is replaced when the file
 * changes, and a settings change starts everything afresh.
 */
export class ModelSizing {
    private plans = new WeakMap<ModelDescriptor, ContextPlan>();
    /**
     * What each file took when it last loaded, by llama.cpp's account: the next load of the same file
     * with the same plan takes the same, which the estimate may miss (weights that llama.cpp repacks
     * for the CPU's matrix units take a second copy, which GgufInsights does not count).
     */
    private measured = new WeakMap<ModelDescriptor, MemoryFootprint>();
    /** Each file's estimate with its plan, made once (a listing asks for every model's). */
    private estimates = new WeakMap<ModelDescriptor, MemoryFootprint>();
    /** chatserve.json's settings in force (settingsFile.ts). */
    private fileSettings: LoadedSettings = noSettings;

    /** `models`: the folder's models, whose headers size a draft model that is one of them (else the draft counts at its file's size). */
    public constructor(private readonly flags: ContextSettings, private readonly models: () => readonly ModelDescriptor[] = () => []) {}

    /** chatserve.json changed: every plan and memory figure is worked out again. */
    public useSettings(settings: LoadedSettings): void {
        this.fileSettings = settings;
        this.plans = new WeakMap();
        this.estimates = new WeakMap();
        this.measured = new WeakMap();
    }

    /** The model's settings from chatserve.json (empty without one). */
    public modelSettings(id: string): ResolvedModelSettings {
        return settingsForModel(this.fileSettings, id);
    }

    /**
     * What a model is served with: its context per request, its parallel sequences, their KV cache
     * and its types, and its chat template; chatserve.json's ctx_size, parallel and cache_type_k/_v
     * over --ctx-size, --parallel and --cache-type-k/-v.
     */
    public planFor(descriptor: ModelDescriptor): ContextPlan {
        let plan = this.plans.get(descriptor);
        if (plan == null) {
            const own = this.modelSettings(descriptor.id);
            plan = planContext(descriptor, {
                ...this.flags, ctxSize: own.ctxSize ?? this.flags.ctxSize, parallel: own.parallel ?? this.flags.parallel,
                kvCacheTypes: {k: own.cacheTypeK ?? this.flags.kvCacheTypes?.k ?? "f16", v: own.cacheTypeV ?? this.flags.kvCacheTypes?.v ?? "f16"}
            });
            if (own.chatTemplateText != null)
                plan = {...plan, chatTemplate: own.chatTemplateText};
            if (own.lora != null && own.lora.length > 0 && descriptor.capabilities.includes("chat"))
                plan = {...plan, loraAdapters: own.lora.map(({path, scale}) => ({path, scale: scale ?? 1}))};
            // --draft-model serves every chat model but its own file; chatserve.json's draft wins.
            const draft = own.draft ?? (this.flags.draftModel != null && realPath(this.flags.draftModel) !== realPath(descriptor.path) ? this.flags.draftModel : undefined);
            if (draft != null && descriptor.capabilities.includes("chat"))
                plan = {...plan, draft: {path: draft, ...(own.draftTokens == null ? {} : {tokens: own.draftTokens})}, draftBytes: this.draftBytes(draft, plan)};
            if (own.lookupDecoding != null && descriptor.capabilities.includes("chat"))
                plan = {...plan, lookupDecoding: own.lookupDecoding};
            const projector = own.mmproj ?? descriptor.projector;
            // The paired projector was checked at the scan; chatserve.json's is checked as it loads (projectorCheck.ts).
            if (this.flags.vision === true && projector != null && own.mmproj == null && descriptor.projectorError != null)
                plan = {...plan, projectorRefusal: descriptor.projectorError};
            else if (this.flags.vision === true && projector != null)
                plan = {...plan, projector, projectorBytes: fileSize(projector)};
            this.plans.set(descriptor, plan);
        }
        return plan;
    }

    /**
     * What the model will take in memory with its plan: what it took when it last loaded, else
     * node-llama-cpp's estimate, else (no estimate from its header) its file and KV cache.
     */
    public estimateFor(descriptor: ModelDescriptor): MemoryFootprint {
        const measured = this.measured.get(descriptor);
        if (measured != null)
            return withProjector(measured, this.planFor(descriptor), this.flags.imageDecodeBytes ?? 0);
        let estimate = this.estimates.get(descriptor);
        if (estimate == null) {
            const plan = this.planFor(descriptor);
            const weightsAndCache = withCacheTypes(descriptor, plan,
                descriptor.memory?.(plan.contextLength, plan.parallel) ?? {ram: descriptor.sizeBytes + (plan.kvCacheBytes ?? 0), vram: 0});
            estimate = withDraft(withAdapters(withProjector(weightsAndCache, plan, this.flags.imageDecodeBytes ?? 0), plan), plan);
            this.estimates.set(descriptor, estimate);
        }
        return estimate;
    }

    /** What a load of the file took, by llama.cpp's account: its next loads count that. */
    public remember(descriptor: ModelDescriptor, footprint: MemoryFootprint): void {
        this.measured.set(descriptor, footprint);
    }

    public isMeasured(descriptor: ModelDescriptor): boolean {
        return this.measured.has(descriptor);
    }

    /**
     * A draft model's weights and its context (one sequence for each of its target's, of the
     * target's length): from its header when the folder lists it, else its file and no cache.
     */
    private draftBytes(file: string, plan: ContextPlan): number {
        const real = realPath(file);
        const draft = this.models().find((model) => realPath(model.path) === real);
        const footprint = draft?.memory?.(plan.contextLength, plan.parallel);
        if (footprint != null)
            return footprint.ram + footprint.vram;
        return (draft?.sizeBytes ?? fileSize(file)) + (draft?.kvCache?.(plan.contextLength, plan.parallel) ?? 0);
    }
}

/** A draft model's memory (engine/speculation/draftModel.ts), where its target's weights are: loaded with it, counted with it. */
function withDraft(footprint: MemoryFootprint, plan: ContextPlan): MemoryFootprint {
    if (plan.draftBytes == null)
        return footprint;
    return footprint.vram > 0 ? {...footprint, vram: footprint.vram + plan.draftBytes} : {...footprint, ram: footprint.ram + plan.draftBytes};
}

function realPath(file: string): string {
    try {
        return realpathSync(file);
    } catch {
        return file;
    }
}

/**
 * A vision projector's weights, which llama.cpp's account of the model does not include (mtmd
 * allocates its own buffers): counted at their file's size, in RAM (an estimate, on a GPU too); the
 * images its cache may keep decoded and encoded, at the cache's bound in bytes; and the images the
 * server may be decoding at once (engine/vision/imageMemory.ts).
 */
function withProjector(footprint: MemoryFootprint, plan: ContextPlan, decodeBytes: number): MemoryFootprint {
    return plan.projectorBytes == null ? footprint : {...footprint, ram: footprint.ram + plan.projectorBytes + keptImages.bytes + decodeBytes};
}

/**
 * node-llama-cpp's whole-model estimate counts an f16 cache (kvCacheTypes.ts says why it cannot be
 * asked for another): the difference the plan's types make is taken off (or added) where the
 * cache lives, in VRAM on a GPU backend.
 */
function withCacheTypes(descriptor: ModelDescriptor, plan: ContextPlan, footprint: MemoryFootprint): MemoryFootprint {
    if (plan.kvCacheTypes == null || descriptor.kvCache == null || descriptor.memory == null)
        return footprint;
    const change = descriptor.kvCache(plan.contextLength, plan.parallel, plan.kvCacheTypes) - descriptor.kvCache(plan.contextLength, plan.parallel);
    return footprint.vram > 0 ? {...footprint, vram: Math.max(0, footprint.vram + change)} : {...footprint, ram: Math.max(0, footprint.ram + change)};
}

/** LoRA adapters' tensors are loaded whole beside the weights: counted at their files' size, in RAM (an estimate on a GPU too). */
function withAdapters(footprint: MemoryFootprint, plan: ContextPlan): MemoryFootprint {
    const bytes = (plan.loraAdapters ?? []).reduce((sum, adapter) => sum + fileSize(adapter.path), 0);
    return bytes === 0 ? footprint : {...footprint, ram: footprint.ram + bytes};
}

function fileSize(file: string): number {
    try {
        return statSync(file).size;
    } catch {
        return 0;
    }
}
