import type {Conversation} from "./conversation.js";

/** Conversations live in this browser's IndexedDB, one record per conversation keyed by id. */
const dbName = "chatserve";
const storeName = "conversations";

let opened: Promise<IDBDatabase> | null = null;

function database(): Promise<IDBDatabase> {
    opened ??= new Promise((resolve, reject) => {
        const request = indexedDB.open(dbName, 1);
        request.onupgradeneeded = () => request.result.createObjectStore(storeName, {keyPath: "id"});
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error);
    });
    return opened;
}

async function run<T>(mode: IDBTransactionMode, act: (store: IDBObjectStore) => IDBRequest<T>): Promise<T> {
    const db = await database();
    return await new Promise((resolve, reject) => {
        const request = act(db.transaction(storeName, mode).objectStore(storeName));
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error);
    });
}

export async function loadConversations(): Promise<Conversation[]> {
    const all = await run<Conversation[]>("readonly", (store) => store.getAll() as IDBRequest<Conversation[]>);
    return all.sort((a, b) => b.updatedAt - a.updatedAt);
}

export async function saveConversation(conversation: Conversation): Promise<void> {
    await run("readwrite", (store) => store.put(conversation));
}

export async function deleteConversation(id: string): Promise<void> {
    await run("readwrite", (store) => store.delete(id));
}
