import {z} from "zod";
import {keepAliveValue, type KeepAlive} from "./keepAlive.js";
import {kvCacheTypeNames, type KvCacheType} from "../engine/kvCacheTypes.js";

/**
 * The settings file, `chatserve.json` in the models folder: per model (by its id, or by a pattern
 * with `*` wildcards), what it loads with and how it samples by default. JSON, not YAML: the
 * project already reads and validates JSON with zod everywhere, JSON needs no new dependency, and
 * its errors point at one place (YAML's indentation and implicit types, `no` → false, `1e3` → a
 * number, are the mistakes a hand-edited file makes).
 *
 * Which entry wins, field by field: the model's own id, then the pattern with the most characters
 * besides its `*`s (as --model-alias patterns: modelAliases.ts), then equally long patterns in the
 * order written. So `"*": {"keep_alive": "5m"}` and `"qwen*": {"temperature": 0.6}` both reach a
 * qwen model, and its own entry's fields win over both.
 */

const positiveInteger = z.number().int().positive();
const unitInterval = z.number().min(0).max(1);

export const modelEntrySchema = z.strictObject({
    /** Tokens per request (llama.cpp's n_ctx per sequence); over --ctx-size. */
    ctx_size: positiveInteger.optional(),
    /** Requests generated at once; over --parallel. */
    parallel: positiveInteger.max(64).optional(),
    /** Sampling defaults: a request's own fields always win. */
    temperature: z.number().min(0).max(2).optional(),
    top_p: unitInterval.optional(),
    top_k: z.number().int().min(0).optional(),
    min_p: unitInterval.optional(),
    /** llama.cpp's multiplicative penalty on recent tokens (1: off). */
    repeat_penalty: z.number().min(0).max(10).optional(),
    /** A Jinja chat template, relative to the models folder, used instead of the GGUF's own. */
    chat_template: z.string().min(1).optional(),
    /** Other names for this model (only on an entry for one model id, not a pattern). */
    aliases: z.array(z.string().min(1)).optional(),
    /** How long it stays loaded once idle (as --keep-alive: "5m", 300, 0, -1); a request's keep_alive wins. */
    keep_alive: keepAliveValue.nullish(),
    /** A vision projector file (relative to the folder), loaded with the model for image input, over the one paired by name. */
    mmproj: z.string().min(1).optional(),
    /** What its KV cache stores keys and values as (llama-server's names: f16, q8_0, q4_0…); over --cache-type-k / --cache-type-v. */
    cache_type_k: z.enum(kvCacheTypeNames).optional(),
    cache_type_v: z.enum(kvCacheTypeNames).optional(),
    /**
     * LoRA adapters (GGUF files relative to the folder, as llama.cpp's convert_lora_to_gguf.py
     * writes them) applied to the model at their scale (default 1); listed in /v1/models by index, as llama-server's ids.
     */
    lora: z.array(z.strictObject({path: z.string().min(1), scale: z.number().min(-8).max(8).optional()})).max(16).optional(),
    /**
     * A draft model for speculative decoding (a GGUF relative to the folder, of the same tokenizer),
     * loaded and unloaded with the model; over --draft-model. One whose tokenizer differs is refused at load.
     */
    draft: z.string().min(1).optional(),
    /** Tokens the draft model drafts each step (llama-server's --spec-draft-n-max); absent: adapted to how many it gets accepted. */
    draft_tokens: z.number().int().min(1).max(16).optional(),
    /** Draftless lookup decoding and its pool for this model's requests; over the server's (on unless --no-lookup-decoding). */
    lookup_decoding: z.boolean().optional()
});

export const settingsFileSchema = z.strictObject({
    models: z.record(z.string().min(1), modelEntrySchema)
}).superRefine((file, context) => {
    for (const [key, entry] of Object.entries(file.models))
        if (key.includes("*") && entry.aliases != null)
            context.addIssue({code: "custom", path: ["models", key, "aliases"], message: "aliases belong on one model's own entry, not on a pattern"});
});

export type ModelEntry = z.output<typeof modelEntrySchema>;

/** The sampling defaults a model's requests start from, before their own fields. */
export type SamplingDefaults = {temperature?: number, topP?: number, topK?: number, minP?: number, repeatPenalty?: number};

/** One model's settings, resolved from every entry that covers it. */
export type ModelSettings = {
    ctxSize?: number,
    parallel?: number,
    sampling: SamplingDefaults,
    /** The chat template's path, relative to the models folder. */
    chatTemplate?: string,
    keepAlive?: KeepAlive,
    mmproj?: string,
    cacheTypeK?: KvCacheType,
    cacheTypeV?: KvCacheType,
    /** Resolved paths (settingsFile.ts) and scales. */
    lora?: Array<{path: string, scale?: number}>,
    /** The draft model's resolved path (settingsFile.ts), and its fixed draft length. */
    draft?: string,
    draftTokens?: number,
    /** Lookup decoding for this model; absent: the flag's. */
    lookupDecoding?: boolean
};

type Rule = {key: string, entry: ModelEntry, regex: RegExp | null, specificity: number, order: number};

/** A parsed settings file, answering "what does model X get". */
export class SettingsTable {
    private readonly rules: Rule[];

    public constructor(public readonly models: Record<string, ModelEntry> = {}) {
        this.rules = Object.entries(models).map(([key, entry], order) => key.includes("*")
            ? {key, entry, regex: wildcardRegex(key), specificity: key.replaceAll("*", "").length, order}
            : {key, entry, regex: null, specificity: Number.POSITIVE_INFINITY, order});
        this.rules.sort((a, b) => b.specificity - a.specificity || a.order - b.order);
    }

    /** The entries covering `id`, the one that wins first. */
    public entriesFor(id: string): ModelEntry[] {
        return this.rules.filter((rule) => rule.regex == null ? rule.key === id : rule.regex.test(id)).map((rule) => rule.entry);
    }

    public settingsFor(id: string): ModelSettings {
        const first = <K extends keyof ModelEntry>(field: K): ModelEntry[K] | undefined =>
            this.entriesFor(id).find((entry) => entry[field] !== undefined)?.[field];
        const sampling: SamplingDefaults = {
            temperature: first("temperature"), topP: first("top_p"), topK: first("top_k"), minP: first("min_p"), repeatPenalty: first("repeat_penalty")
        };
        return {
            ctxSize: first("ctx_size"), parallel: first("parallel"), sampling: withoutUndefined(sampling),
            chatTemplate: first("chat_template"), keepAlive: first("keep_alive") ?? undefined, mmproj: first("mmproj"),
            cacheTypeK: first("cache_type_k"), cacheTypeV: first("cache_type_v"), lora: first("lora"),
            draft: first("draft"), draftTokens: first("draft_tokens"), lookupDecoding: first("lookup_decoding")
        };
    }

    /** Every `{name, model}` the file's aliases add. */
    public aliases(): Array<{name: string, model: string}> {
        return Object.entries(this.models).flatMap(([model, entry]) => (entry.aliases ?? []).map((name) => ({name, model})));
    }
}

/** The file's text → its table; throws an Error whose message says what is wrong and where. */
export function parseSettingsFile(text: string): SettingsTable {
    let json: unknown;
    try {
        json = JSON.parse(text);
    } catch (error) {
        throw new Error(`not valid JSON: ${(error as Error).message}`);
    }
    const parsed = settingsFileSchema.safeParse(json);
    if (!parsed.success)
        throw new Error(parsed.error.issues.map((issue) => `${issue.path.length === 0 ? "(top level)" : issue.path.join(".")}: ${issue.message}`).join("; "));
    return new SettingsTable(parsed.data.models);
}

function withoutUndefined<T extends object>(value: T): T {
    return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;
}

function wildcardRegex(pattern: string): RegExp {
    const escaped = pattern.split("*").map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
    return new RegExp(`^${escaped.join(".*")}$`, "s");
}
