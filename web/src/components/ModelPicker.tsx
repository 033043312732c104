import type {ModelEntry} from "../api.js";
import {formatContext} from "../format.js";

/** Chat models only (an embedding model cannot answer), loaded ones first, each with what it can do. */
export function chatModels(models: ModelEntry[]): ModelEntry[] {
    return models
        .filter((model) => model.capabilities.includes("chat") && model.status !== "unavailable")
        .sort((a, b) => Number(b.loaded) - Number(a.loaded) || a.id.localeCompare(b.id));
}

export function modelLabel(model: ModelEntry): string {
    const extras = model.capabilities.filter((capability) => capability !== "chat" && capability !== "completion");
    return `${model.loaded ? "● " : ""}${model.id} · ${formatContext(model.context_length)}${extras.length > 0 ? ` · ${extras.join(", ")}` : ""}`;
}

export function ModelPicker({models, value, onChange}: {models: ModelEntry[], value: string, onChange(id: string): void}) {
    const choices = chatModels(models);
    return (
        <select class="model-picker" aria-label="Model" value={value} onChange={(event) => onChange(event.currentTarget.value)}>
            {!choices.some((model) => model.id === value) && <option value={value}>{value === "" ? "Choose a model" : `${value} (not on the server)`}</option>}
            {choices.map((model) => <option key={model.id} value={model.id}>{modelLabel(model)}</option>)}
        </select>
    );
}
