import {useState} from "preact/hooks";
import {modelAction, type ModelEntry} from "../api.js";
import {formatBytes, formatContext, formatUntil} from "../format.js";
import {pullModel, type PullProgress} from "../pull.js";

type Props = {models: ModelEntry[], onChanged(): void};

/** What `chatserve ps` shows (memory, context, until when) for every model, with load/unload and a pull. */
export function ModelsPanel({models, onChanged}: Props) {
    const [busy, setBusy] = useState<string | null>(null);
    const [error, setError] = useState<string | null>(null);
    const [pullName, setPullName] = useState("");
    const [progress, setProgress] = useState<PullProgress | null>(null);

    async function act(id: string, action: "load" | "unload") {
        setBusy(id);
        setError(null);
        try {
            await modelAction(id, action);
        } catch (caught) {
            setError(`${action === "load" ? "Loading" : "Unloading"} ${id}: ${(caught as Error).message}`);
        } finally {
            setBusy(null);
            onChanged();
        }
    }

    async function pull() {
        setError(null);
        setProgress({status: "starting"});
        try {
            await pullModel(pullName.trim(), setProgress, new AbortController().signal);
            setPullName("");
        } catch (caught) {
            setError(`Pull: ${(caught as Error).message}`);
        } finally {
            setProgress(null);
            onChanged();
        }
    }

    return (
        <section class="models-panel" aria-labelledby="models-title">
            <h2 id="models-title">Models</h2>
            {error != null && <p class="error" role="alert">{error}</p>}
            <div class="table-wrap">
                <table>
                    <thead><tr><th scope="col">Model</th><th scope="col">State</th><th scope="col">Memory</th><th scope="col">Context</th><th scope="col">Capabilities</th><th scope="col"><span class="sr-only">Action</span></th></tr></thead>
                    <tbody>
                        {models.map((model) => (
                            <tr key={model.id}>
                                <th scope="row">{model.id}{model.alias_for != null && <small> → {model.alias_for}</small>}</th>
                                <td>{model.loaded ? `loaded, ${formatUntil(model.expires_at)}` : model.loading ? "loading" : model.status}{model.error != null && <small class="error"> {model.error}</small>}</td>
                                <td>{model.loaded ? formatBytes(model.memory_bytes) : `${formatBytes(model.size_bytes)} on disk`}</td>
                                <td>{formatContext(model.context_length)}</td>
                                <td>{model.capabilities.join(", ")}</td>
                                <td>
                                    {model.status === "unavailable" ? null : model.loaded
                                        ? <button type="button" aria-label={`Unload ${model.id}`} disabled={busy != null} onClick={() => void act(model.id, "unload")}>Unload</button>
                                        : <button type="button" aria-label={`Load ${model.id}`} disabled={busy != null || model.loading} onClick={() => void act(model.id, "load")}>Load</button>}
                                </td>
                            </tr>
                        ))}
                    </tbody>
                </table>
            </div>
            <form class="pull" onSubmit={(event) => { event.preventDefault(); if (pullName.trim() !== "") void pull(); }}>
                <label for="pull-name">Pull a model from Hugging Face</label>
                <div class="row">
                    <input id="pull-name" placeholder="hf.co/user/repo:Q4_K_M" value={pullName} onInput={(event) => setPullName(event.currentTarget.value)} disabled={progress != null} />
                    <button type="submit" disabled={progress != null || pullName.trim() === ""}>Pull</button>
                </div>
                {progress != null && (
                    <div class="progress" role="status">
                        {progress.status}
                        {progress.total != null && progress.total > 0 && <progress max={progress.total} value={progress.completed ?? 0} aria-label="Pull progress" />}
                    </div>
                )}
            </form>
        </section>
    );
}
