import type {Conversation, Sampling} from "../conversation.js";

type Props = {conversation: Conversation, onChange(conversation: Conversation): void};

function numberOrNull(text: string): number | null {
    return text.trim() === "" || !Number.isFinite(Number(text)) ? null : Number(text);
}

/** This conversation's system prompt and sampling; an empty field leaves the model's default. */
export function SettingsPanel({conversation, onChange}: Props) {
    const sampling = (name: keyof Sampling, value: string) => onChange({...conversation, sampling: {...conversation.sampling, [name]: numberOrNull(value)}});
    return (
        <section class="settings" aria-label="Conversation settings">
            <label for="system-prompt">System prompt</label>
            <textarea id="system-prompt" rows={3} value={conversation.system} placeholder="(none)" onInput={(event) => onChange({...conversation, system: event.currentTarget.value})} />
            <div class="sampling">
                <label>Temperature<input type="number" step="0.1" min="0" max="2" placeholder="default" value={conversation.sampling.temperature ?? ""} onInput={(event) => sampling("temperature", event.currentTarget.value)} /></label>
                <label>Top P<input type="number" step="0.05" min="0" max="1" placeholder="default" value={conversation.sampling.top_p ?? ""} onInput={(event) => sampling("top_p", event.currentTarget.value)} /></label>
                <label>Max tokens<input type="number" step="1" min="1" placeholder="default" value={conversation.sampling.max_tokens ?? ""} onInput={(event) => sampling("max_tokens", event.currentTarget.value)} /></label>
            </div>
        </section>
    );
}
