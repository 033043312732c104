import type {ModelRegistry} from "../../models/modelRegistry.js";

/**
 * Ollama names a model `name:tag`, and its clients write `:latest` where no tag was given (the
 * `ollama` library and Copilot both do). A chatserve model's id is its file's name, so `id` and
 * `id:latest` name the same model; a name the registry knows as it is written (an alias such as
 * `qwen2.5-coder:7b`, --model-alias or chatserve.json) is taken as it is.
 */
export function resolveModelName(registry: Pick<ModelRegistry, "idOf">, name: string): string {
    if (registry.idOf(name) != null)
        return name;
    const untagged = name.endsWith(":latest") ? name.slice(0, -":latest".length) : null;
    return untagged != null && registry.idOf(untagged) != null ? untagged : name;
}

/** A model's name as Ollama lists it: tagged, `id:latest`, unless its id (an alias) has a tag already. */
export function ollamaName(id: string): string {
    return id.includes(":") ? id : `${id}:latest`;
}
