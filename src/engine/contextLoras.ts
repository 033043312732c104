import type {LlamaContext} from "node-llama-cpp";
import type {LoraAdapter} from "./loraAdapters.js";
import {setContextLoras, withContextLock} from "./llamaInternals.js";
import {adapterSetKey, type LoraScales} from "./loraScales.js";

/**
 * The LoRA scales a generation context decodes under now. llama.cpp keeps one set of adapters per
 * context, applied to every sequence in a batch, so a switch is safe only while no sequence of
 * another set is leased (the sequence pool sees to it: sequencePool.ts) and no batch is being
 * decoded (the switch takes the context's lock, as each decode does). A switch costs llama.cpp a
 * new graph reservation at the next decode, nothing more: the adapters' files were loaded with the
 * model (llamaModelParts.ts) and stay loaded.
 */
export class ContextLoras {
    /** The key (loraScales.ts) of the scales set on the context; "" those it was created with. */
    private applied = "";

    public constructor(private readonly context: LlamaContext, private readonly adapters: readonly LoraAdapter[]) {}

    /** The scales each request gets when it names none (chatserve.json's, as the context was created). */
    public get defaults(): LoraScales {
        return this.adapters.map(({scale}) => scale);
    }

    /** The key of `scales`, as the pool gates leases and the prompt cache partitions states by it. */
    public keyOf(scales: LoraScales): string {
        return adapterSetKey(scales, this.defaults);
    }

    /** Sets `scales` on the context unless they are set already; the caller holds a lease of their set. */
    public async use(scales: LoraScales): Promise<void> {
        const key = this.keyOf(scales);
        if (key === this.applied)
            return;
        await withContextLock(this.context, async () => {
            // Several leases of the new set may have queued for the lock: the first one switched.
            if (key === this.applied)
                return;
            await setContextLoras(this.context, this.adapters.map(({path}, index) => ({filePath: path, scale: scales[index] ?? 0})));
            this.applied = key;
        });
    }
}
