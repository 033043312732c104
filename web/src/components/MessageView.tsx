import {useState} from "preact/hooks";
import type {Message} from "../conversation.js";
import {renderMarkdown} from "../markdown.js";
import {formatStats} from "../stats.js";

type Props = {
    message: Message,
    streaming: boolean,
    /** Last reply in the conversation: it can be regenerated. */
    last: boolean,
    onEdit?(content: string): void,
    onBranch(): void,
    onRegenerate?(): void
};

/** Copy buttons inside rendered Markdown are plain HTML, so one click handler on the body serves them all. */
function copyCode(event: MouseEvent): void {
    const button = (event.target as HTMLElement).closest(".copy-code");
    const code = button?.parentElement?.nextElementSibling?.textContent;
    if (button != null && code != null) {
        void navigator.clipboard?.writeText(code);
        button.textContent = "Copied";
        setTimeout(() => { button.textContent = "Copy"; }, 1500);
    }
}

export function MessageView({message, streaming, last, onEdit, onBranch, onRegenerate}: Props) {
    const [editing, setEditing] = useState<string | null>(null);
    const who = message.role === "user" ? "You" : "Assistant";
    return (
        <article class={`message ${message.role}`} aria-label={`${who} said`}>
            {message.images.length > 0 && (
                <div class="images">{message.images.map((url, index) => <img key={index} src={url} alt={`Attached image ${index + 1}`} />)}</div>
            )}
            {message.reasoning != null && message.reasoning !== "" && (
                <details class="reasoning" open={streaming && message.content === ""}>
                    <summary>{streaming && message.content === "" ? "Thinking…" : "Reasoning"}</summary>
                    <div class="reasoning-text">{message.reasoning}</div>
                </details>
            )}
            {editing != null ? (
                <form class="edit" onSubmit={(event) => { event.preventDefault(); onEdit?.(editing); setEditing(null); }}>
                    <textarea aria-label="Edit message" value={editing} onInput={(event) => setEditing(event.currentTarget.value)} rows={4} />
                    <div class="row end">
                        <button type="button" onClick={() => setEditing(null)}>Cancel</button>
                        <button type="submit" class="primary">Save and send</button>
                    </div>
                </form>
            ) : message.role === "user" ? (
                <div class="body plain">{message.content}</div>
            ) : (
                <div class="body markdown" onClick={copyCode} dangerouslySetInnerHTML={{__html: renderMarkdown(message.content)}} />
            )}
            {streaming && message.content === "" && message.reasoning == null && <div class="typing" aria-label="Waiting for the reply">…</div>}
            {message.error != null && <p class="error" role="alert">{message.error}</p>}
            {message.stopped && <p class="note">Stopped.</p>}
            {!streaming && editing == null && (
                <div class="actions">
                    {message.stats != null && <span class="stats">{formatStats(message.stats).join(" · ")}</span>}
                    {message.role === "assistant" && <button type="button" aria-label="Copy reply" onClick={() => void navigator.clipboard?.writeText(message.content)}>Copy</button>}
                    {message.role === "user" && onEdit != null && <button type="button" aria-label="Edit message" onClick={() => setEditing(message.content)}>Edit</button>}
                    {last && onRegenerate != null && <button type="button" aria-label="Regenerate reply" onClick={onRegenerate}>Regenerate</button>}
                    <button type="button" aria-label="Branch from here into a new conversation" onClick={onBranch}>Branch</button>
                </div>
            )}
        </article>
    );
}
