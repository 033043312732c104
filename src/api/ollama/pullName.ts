import {parsePullSource, type PullSource} from "../../pull/pullSource.js";
import {BadRequestError} from "../../errors.js";

/**
 * The model an `/api/pull` names, as `chatserve pull` reads it. Ollama's clients write a Hugging
 * Face model as `hf.co/user/repo:Q4_K_M` (Ollama's own spelling, `:latest` for the default
 * quantization); `chatserve pull`'s `hf:user/repo:Q4_K_M` and a .gguf URL are taken too. A name
 * of Ollama's library (`llama3.2`) has no GGUF file chatserve can find: a 400 at once, saying what to write.
 */
export function pullSourceOf(name: string, hubEndpoint: string): PullSource {
    const hubName = /^(?:https?:\/\/)?(?:hf\.co|huggingface\.co)\/([^/]+\/[^/:]+)(?::(.+))?$/i.exec(name.trim());
    const text = hubName != null ? `hf:${hubName[1]}${hubName[2] != null && hubName[2].toLowerCase() !== "latest" ? `:${hubName[2]}` : ""}` : name;
    try {
        return parsePullSource(text, hubEndpoint);
    } catch (error) {
        throw new BadRequestError(`Cannot pull '${name}': ${(error as Error).message}. chatserve pulls GGUF models from the Hugging Face hub ` +
            "(hf.co/user/repo:Q4_K_M or hf:user/repo:Q4_K_M) or from a URL of a .gguf file; Ollama's library names are not on the hub.",
        {param: "model", code: "invalid_value"});
    }
}
