import {useRef, useState} from "preact/hooks";
import {searchConversations, type Conversation} from "../conversation.js";

type Props = {
    conversations: Conversation[],
    currentId: string | null,
    onOpen(id: string): void,
    onNew(): void,
    onRename(id: string, title: string): void,
    onDelete(id: string): void,
    onExport(): void,
    onImport(text: string): void,
    onModels(): void
};

/** The conversations kept in this browser: new, search, open, rename, delete, export and import. */
export function Sidebar(props: Props) {
    const [query, setQuery] = useState("");
    const [renaming, setRenaming] = useState<{id: string, title: string} | null>(null);
    const file = useRef<HTMLInputElement>(null);
    const shown = searchConversations(props.conversations, query);
    return (
        <nav class="sidebar" aria-label="Conversations">
            <div class="row">
                <button type="button" class="primary grow" onClick={props.onNew}>New chat</button>
                <button type="button" onClick={props.onModels}>Models</button>
            </div>
            <input type="search" aria-label="Search conversations" placeholder="Search" value={query} onInput={(event) => setQuery(event.currentTarget.value)} />
            <ul class="conversation-list">
                {shown.map((conversation) => (
                    <li key={conversation.id} class={conversation.id === props.currentId ? "current" : ""}>
                        {renaming?.id === conversation.id ? (
                            <form onSubmit={(event) => { event.preventDefault(); props.onRename(conversation.id, renaming.title.trim() || conversation.title); setRenaming(null); }}>
                                <input aria-label="New title" autoFocus value={renaming.title} onInput={(event) => setRenaming({id: conversation.id, title: event.currentTarget.value})}
                                    onKeyDown={(event) => { if (event.key === "Escape") setRenaming(null); }} />
                            </form>
                        ) : (
                            <>
                                <button type="button" class="open" aria-current={conversation.id === props.currentId ? "page" : undefined} onClick={() => props.onOpen(conversation.id)}>{conversation.title}</button>
                                <button type="button" class="icon" aria-label={`Rename ${conversation.title}`} onClick={() => setRenaming({id: conversation.id, title: conversation.title})}>✎</button>
                                <button type="button" class="icon" aria-label={`Delete ${conversation.title}`} onClick={() => { if (confirm(`Delete "${conversation.title}"?`)) props.onDelete(conversation.id); }}>×</button>
                            </>
                        )}
                    </li>
                ))}
                {shown.length === 0 && <li class="note">{query === "" ? "No conversations yet." : "Nothing matches."}</li>}
            </ul>
            <div class="row">
                <button type="button" class="grow" onClick={props.onExport} disabled={props.conversations.length === 0}>Export</button>
                <button type="button" class="grow" onClick={() => file.current?.click()}>Import</button>
                <input ref={file} type="file" accept="application/json,.json" hidden aria-label="Import conversations file"
                    onChange={async (event) => { const chosen = event.currentTarget.files?.[0]; event.currentTarget.value = ""; if (chosen != null) props.onImport(await chosen.text()); }} />
            </div>
        </nav>
    );
}
