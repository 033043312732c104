import {readGgufFileInfo} from "node-llama-cpp";

/**
 * A LoRA adapter a model is served with (chatserve.json's `lora`): its GGUF, as llama.cpp's
 * convert_lora_to_gguf.py writes one, and its scale (llama-server's `--lora-scaled`). node-llama-cpp
 * applies adapters to a whole context, so every request of the model gets them at these scales.
 */
export type LoraAdapter = {path: string, scale: number};

/**
 * Why llama.cpp would refuse the adapter for a model of `architecture`, read from the adapter's
 * header before anything loads: llama.cpp's own refusal is a log line beside node-llama-cpp's
 * "Failed to create context", and "model arch and LoRA arch mismatch" names neither architecture.
 * Null when it may load (llama.cpp still checks each tensor's name and shape against the model).
 */
export async function loraAdapterRefusal(adapter: string, architecture: string | undefined): Promise<string | null> {
    let metadata: Record<string, unknown>;
    try {
        metadata = flatten((await readGgufFileInfo(adapter, {readTensorInfo: false})).metadata as unknown as Record<string, unknown>);
    } catch (error) {
        return `its LoRA adapter ${adapter} cannot be read as a GGUF file (${(error as Error).message})`;
    }
    if (metadata["general.type"] !== "adapter" || metadata["adapter.type"] !== "lora")
        return `${adapter} is not a LoRA adapter (its general.type is ${describe(metadata["general.type"])} and adapter.type ${describe(metadata["adapter.type"])}, not 'adapter' and 'lora')`;
    const adapterArchitecture = metadata["general.architecture"];
    if (architecture != null && adapterArchitecture !== architecture)
        return `its LoRA adapter ${adapter} was made for the ${describe(adapterArchitecture)} architecture, and this model is ${describe(architecture)}`;
    return null;
}

/** node-llama-cpp's nested metadata ({general: {type}}) as GGUF's dotted keys. */
function flatten(value: Record<string, unknown>, prefix = ""): Record<string, unknown> {
    return Object.fromEntries(Object.entries(value).flatMap(([key, item]) => item != null && typeof item === "object" && !Array.isArray(item)
        ? Object.entries(flatten(item as Record<string, unknown>, `${prefix}${key}.`))
        : [[`${prefix}${key}`, item]]));
}

function describe(value: unknown): string {
    return typeof value === "string" ? `'${value}'` : "missing";
}
