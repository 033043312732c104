/**
 * A model's name as Ollama lists it. Ollama names a model `name:tag` and its clients write `:latest`
 * where no tag was given; chatserve's id is its file's name, so `/api/tags` and `/api/ps` list each
 * as `id:latest`, which names the model `id` on every API (models/modelLookup.ts). An id that has a
 * tag already (an alias such as `qwen2.5-coder:7b`) is listed as it is.
 */
export function ollamaName(id: string): string {
    return id.includes(":") ? id : `${id}:latest`;
}
