import {useEffect, useRef, useState} from "preact/hooks";
import {ApiError, listModels, storeKey, storedKey, streamChat, type ModelEntry} from "./api.js";
import {branchAt, editedAt, newConversation, newId, samplingFields, titleFrom, toRequestMessages, withoutLastReply, type Conversation, type Message} from "./conversation.js";
import {exportConversations, importConversations} from "./exchange.js";
import {replyStats, type Usage} from "./stats.js";
import {deleteConversation, loadConversations, saveConversation} from "./store.js";
import {Composer} from "./components/Composer.js";
import {KeyPrompt} from "./components/KeyPrompt.js";
import {MessageView} from "./components/MessageView.js";
import {chatModels, ModelPicker} from "./components/ModelPicker.js";
import {ModelsPanel} from "./components/ModelsPanel.js";
import {SettingsPanel} from "./components/SettingsPanel.js";
import {Sidebar} from "./components/Sidebar.js";
import {ThemeToggle} from "./components/ThemeToggle.js";

type KeyState = "ok" | "missing" | "wrong";

export function App() {
    const [models, setModels] = useState<ModelEntry[]>([]);
    const [keyState, setKeyState] = useState<KeyState>("ok");
    const [serverError, setServerError] = useState<string | null>(null);
    const [conversations, setConversations] = useState<Conversation[]>([]);
    const [currentId, setCurrentId] = useState<string | null>(null);
    const [draft, setDraft] = useState<Conversation>(() => newConversation(""));
    const [streamingId, setStreamingId] = useState<string | null>(null);
    const [view, setView] = useState<"chat" | "models">("chat");
    const [showSettings, setShowSettings] = useState(false);
    const [sidebarOpen, setSidebarOpen] = useState(false);
    const stopper = useRef<AbortController | null>(null);
    const conversationsRef = useRef(conversations);
    conversationsRef.current = conversations;

    async function refreshModels() {
        try {
            setModels(await listModels());
            setKeyState("ok");
            setServerError(null);
        } catch (caught) {
            if (caught instanceof ApiError && caught.status === 401)
                setKeyState(storedKey() == null ? "missing" : "wrong");
            else
                setServerError(`Cannot reach the server: ${(caught as Error).message}`);
        }
    }

    useEffect(() => {
        void refreshModels();
        void loadConversations().then(setConversations).catch(() => setServerError("This browser does not keep conversations (IndexedDB is unavailable)."));
        // Models load, unload and expire on their own: keep the picker and panel current.
        const timer = setInterval(() => void refreshModels(), 5000);
        return () => clearInterval(timer);
    }, []);

    const current = conversations.find((conversation) => conversation.id === currentId) ?? draft;
    const currentModel = models.find((model) => model.id === current.model);
    // A new chat takes the first loaded chat model (or the first one there is).
    if (current.model === "" && chatModels(models).length > 0 && current === draft)
        setDraft({...draft, model: chatModels(models)[0]!.id});

    /** Changes a conversation in memory and in IndexedDB (a draft becomes stored on its first message). */
    function update(conversation: Conversation, persist = true) {
        setConversations((list) => [conversation, ...list.filter((item) => item.id !== conversation.id)].sort((a, b) => b.updatedAt - a.updatedAt));
        if (persist)
            void saveConversation(conversation);
    }

    function patchReply(conversationId: string, replyId: string, patch: (message: Message) => Message, persist = false) {
        const conversation = conversationsRef.current.find((item) => item.id === conversationId);
        if (conversation == null)
            return;
        const next = {...conversation, messages: conversation.messages.map((message) => message.id === replyId ? patch(message) : message)};
        conversationsRef.current = conversationsRef.current.map((item) => item.id === conversationId ? next : item);
        update(next, persist);
    }

    async function reply(conversation: Conversation) {
        const answer: Message = {id: newId(), role: "assistant", content: "", images: []};
        const started = {...conversation, updatedAt: Date.now(), messages: [...conversation.messages, answer]};
        conversationsRef.current = [started, ...conversationsRef.current.filter((item) => item.id !== started.id)];
        update(started);
        setCurrentId(started.id);
        const controller = new AbortController();
        stopper.current = controller;
        setStreamingId(started.id);
        const sentAt = performance.now();
        let firstAt: number | null = null;
        let usage: Usage | null = null;
        const contextLength = models.find((model) => model.id === started.model)?.context_length ?? null;
        const mark = () => { firstAt ??= performance.now(); };
        try {
            await streamChat({model: started.model, messages: toRequestMessages(conversation), ...samplingFields(started.sampling)}, {
                onContent: (text) => { mark(); patchReply(started.id, answer.id, (message) => ({...message, content: message.content + text})); },
                onReasoning: (text) => { mark(); patchReply(started.id, answer.id, (message) => ({...message, reasoning: (message.reasoning ?? "") + text})); },
                onUsage: (value) => { usage = value; }
            }, controller.signal);
            patchReply(started.id, answer.id, (message) => ({...message, stats: replyStats(sentAt, firstAt, performance.now(), usage, contextLength)}), true);
        } catch (caught) {
            const stopped = controller.signal.aborted;
            if (caught instanceof ApiError && caught.status === 401)
                setKeyState(storedKey() == null ? "missing" : "wrong");
            patchReply(started.id, answer.id, (message) => stopped ? {...message, stopped: true} : {...message, error: (caught as Error).message}, true);
        } finally {
            setStreamingId(null);
            stopper.current = null;
            void refreshModels();
        }
    }

    function send(text: string, images: string[]) {
        const base = current;
        const message: Message = {id: newId(), role: "user", content: text, images};
        const title = base.messages.length === 0 ? titleFrom(text) : base.title;
        if (base === draft)
            setDraft(newConversation(base.model));
        void reply({...base, title, messages: [...base.messages, message]});
    }

    const imagesRefused = currentModel == null ? "Choose a model first."
        : currentModel.capabilities.includes("vision") ? null
        : currentModel.vision_error ?? `${currentModel.id} does not read images (it has no vision projector).`;

    function openConversation(id: string) {
        setCurrentId(id);
        setView("chat");
        setSidebarOpen(false);
    }

    function download() {
        const link = document.createElement("a");
        link.href = URL.createObjectURL(new Blob([exportConversations(conversations)], {type: "application/json"}));
        link.download = `chatserve-conversations-${new Date().toISOString().slice(0, 10)}.json`;
        link.click();
        URL.revokeObjectURL(link.href);
    }

    function importFile(text: string) {
        try {
            for (const conversation of importConversations(text))
                update(conversation);
        } catch (caught) {
            setServerError(`Import: ${(caught as Error).message}`);
        }
    }

    const busy = streamingId === current.id;
    // How full the context is after the latest reply that reported usage (the gauge in the top bar).
    const contextFill = current.messages.findLast((message) => message.stats?.contextFill != null)?.stats?.contextFill ?? null;
    const last = current.messages.length - 1;
    return (
        <div class={`app ${sidebarOpen ? "sidebar-open" : ""}`} onKeyDown={(event) => { if (event.key === "Escape") setSidebarOpen(false); }}>
            {keyState !== "ok" && <KeyPrompt wrong={keyState === "wrong"} onKey={(key) => { storeKey(key); void refreshModels(); }} />}
            <Sidebar conversations={conversations} currentId={currentId} onOpen={openConversation}
                onNew={() => { setCurrentId(null); setDraft(newConversation(current.model)); setView("chat"); setSidebarOpen(false); }}
                onRename={(id, title) => { const found = conversations.find((item) => item.id === id); if (found) update({...found, title}); }}
                onDelete={(id) => { setConversations((list) => list.filter((item) => item.id !== id)); void deleteConversation(id); if (id === currentId) setCurrentId(null); }}
                onExport={download} onImport={importFile} onModels={() => { setView("models"); setSidebarOpen(false); }} />
            {sidebarOpen && <button type="button" class="backdrop" aria-label="Close conversations" onClick={() => setSidebarOpen(false)} />}
            <main class="main">
                <header class="topbar">
                    <button type="button" class="icon menu" aria-label="Conversations" aria-expanded={sidebarOpen} onClick={() => setSidebarOpen(!sidebarOpen)}>☰</button>
                    {view === "chat"
                        ? <ModelPicker models={models} value={current.model} onChange={(id) => current === draft ? setDraft({...draft, model: id}) : update({...current, model: id})} />
                        : <button type="button" onClick={() => setView("chat")}>← Chat</button>}
                    {view === "chat" && <button type="button" aria-pressed={showSettings} onClick={() => setShowSettings(!showSettings)}>Settings</button>}
                    {view === "chat" && contextFill != null && (
                        <meter class="context-gauge" min={0} max={1} low={0.7} high={0.9} optimum={0} value={contextFill}
                            aria-label={`Context ${Math.round(contextFill * 100)}% full`} title={`Context ${Math.round(contextFill * 100)}% full`} />
                    )}
                    <ThemeToggle />
                </header>
                {serverError != null && <p class="error banner" role="alert">{serverError}</p>}
                {view === "models" ? <ModelsPanel models={models} onChanged={() => void refreshModels()} /> : (
                    <>
                        {showSettings && <SettingsPanel conversation={current} onChange={(next) => current === draft ? setDraft(next) : update(next)} />}
                        <div class="messages" aria-live="polite">
                            {current.messages.length === 0 && <div class="empty"><h1>chatserve</h1><p>{models.length === 0 ? "No models yet." : "Ask anything. Images work with vision models."}</p></div>}
                            {current.messages.map((message, index) => (
                                <MessageView key={message.id} message={message} streaming={busy && index === last} last={index === last && message.role === "assistant"}
                                    onEdit={busy ? undefined : (content) => void reply(editedAt(current, index, content))}
                                    onRegenerate={busy ? undefined : () => void reply(withoutLastReply(current))}
                                    onBranch={() => { const branch = branchAt(current, index); update(branch); setCurrentId(branch.id); }} />
                            ))}
                        </div>
                        <Composer busy={busy} imagesRefused={imagesRefused} onSend={send} onStop={() => stopper.current?.abort()} />
                    </>
                )}
            </main>
        </div>
    );
}
