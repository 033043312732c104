import {BadRequestError} from "../errors.js";
import type {LoraAdapter} from "./loraAdapters.js";

/**
 * A request's own LoRA scales, as llama-server takes them (`lora: [{id, scale}]`): `id` is the
 * adapter's index in the model's list (GET /v1/models' `lora_adapters`, GET /lora-adapters).
 */
export type LoraScaleRequest = ReadonlyArray<{id: number, scale: number}>;

/** The scale each of the model's adapters runs at for one request, in the adapters' order. */
export type LoraScales = readonly number[];

/**
 * The scales a request runs under, llama-server's way: no `lora` (or an empty list) is the model's
 * own scales; a list sets the adapters it names and turns the others off (scale 0); an id named
 * twice takes its last scale. An id the model has no adapter for is a 400 naming the entry
 * (llama-server ignores it in silence: the client would get the base model and not know).
 */
export function resolveLoraScales(adapters: readonly LoraAdapter[], requested: LoraScaleRequest | undefined, param = "lora"): LoraScales {
    if (requested == null || requested.length === 0)
        return adapters.map(({scale}) => scale);
    const scales = adapters.map(() => 0);
    requested.forEach(({id, scale}, index) => {
        if (id >= adapters.length)
            throw new BadRequestError(adapters.length === 0
                ? `${param}[${index}].id: this model has no LoRA adapters (chatserve.json gives a model its adapters as "lora").`
                : `${param}[${index}].id: there is no LoRA adapter ${id}; this model's are 0 to ${adapters.length - 1} (GET /v1/models lists them as lora_adapters).`,
            {param: `${param}[${index}].id`, code: "invalid_value"});
        scales[id] = scale;
    });
    return scales;
}

/**
 * The name of a set of scales, as the sequence pool and the prompt cache tell sets apart: "" for
 * the scales the model's context was created with (the prompt cache's layout names those already),
 * otherwise the scales themselves. llama.cpp leaves an adapter at scale 0 out, so 0 and -0 are one.
 */
export function adapterSetKey(scales: LoraScales, loadedWith: LoraScales): string {
    const normal = scales.map((scale) => scale === 0 ? 0 : scale);
    const same = normal.length === loadedWith.length && normal.every((scale, index) => scale === (loadedWith[index] === 0 ? 0 : loadedWith[index]));
    return same ? "" : `lora:${JSON.stringify(normal)}`;
}

/**
 * The cache partition a request's sequence holds under an adapter set: KV cells computed under other
 * scales are other numbers, so a prefix is shared, copied, saved and restored only within one set.
 * The default set keeps the partition as it is (and the caches saved before per-request scales).
 */
export function partitionUnderAdapters(partition: string | undefined, adapterSet: string): string | undefined {
    return adapterSet === "" ? partition : JSON.stringify({partition: partition ?? null, lora: adapterSet});
}
