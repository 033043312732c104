import type {ListedModel} from "../../models/listedModel.js";
import {detailsOf, ollamaCapabilities, type OllamaDetails} from "./ollamaModels.js";

export type ShowResponse = {
    license: string,
    modelfile: string,
    parameters: string,
    template: string,
    details: OllamaDetails,
    model_info: Record<string, unknown>,
    capabilities: string[],
    modified_at: string
};

/**
 * `POST /api/show`'s answer. Clients read three things from it, each written from what chatserve
 * serves, not from the file's header alone:
 * - `model_info["<arch>.context_length"]` (Copilot, Zed) and `num_ctx` in `parameters` (Continue):
 *   the context a request gets, so a client never sizes its prompt past it;
 * - `capabilities` (tools, vision, insert, embedding, thinking);
 * - `template`: Continue offers fill-in-the-middle only when it holds `.Suffix`. chatserve frames a
 *   suffix with the model's own FIM tokens (engine's prepareInfill), so the template says so only
 *   for a model that has them.
 */
export function toShowResponse(model: ListedModel): ShowResponse {
    const architecture = model.architecture ?? "unknown";
    const fim = model.capabilities.includes("fim");
    const contextLength = model.contextLength;
    return {
        license: "",
        modelfile: `# Served by chatserve from the GGUF file of '${model.id}'.\nFROM ${model.id}\n` +
            (contextLength != null ? `PARAMETER num_ctx ${contextLength}\n` : ""),
        parameters: contextLength != null ? `num_ctx                        ${contextLength}` : "",
        template: fim
            ? "{{- if .Suffix }}<fim_prefix>{{ .Prompt }}<fim_suffix>{{ .Suffix }}<fim_middle>{{- else }}{{ .Prompt }}{{- end }}"
            : "{{ .Prompt }}",
        details: detailsOf(model),
        model_info: {
            "general.architecture": architecture,
            ...(model.quantization != null ? {"general.file_type": model.quantization} : {}),
            ...(contextLength != null ? {[`${architecture}.context_length`]: contextLength} : {})
        },
        capabilities: ollamaCapabilities(model),
        modified_at: new Date(model.modifiedAt * 1000).toISOString()
    };
}
