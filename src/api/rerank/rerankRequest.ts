import {z} from "zod";
import {keepAliveField} from "../keepAlive.js";

/** Cohere's limit on one request's documents (Jina's is 2048): a reranking batch, not a corpus. */
export const maxDocuments = 1000;

/**
 * The documents: strings, or objects with a `text` (Jina's and Cohere's v1 form), up to
 * `maxDocuments`, each checked in turn and the first at fault named: a zod union over a million bad
 * entries would build a million issues before the 400 (openai-shared/textsOrTokenIds.ts says why).
 */
const documentsField = z.array(z.unknown()).min(1, "documents must hold at least one document").max(maxDocuments, `documents may hold at most ${maxDocuments} entries`)
    .transform((entries, context): string[] => {
        const texts: string[] = [];
        for (const [index, entry] of entries.entries()) {
            const text = typeof entry === "string" ? entry : textOf(entry);
            if (text == null) {
                context.issues.push({code: "custom", input: entry, path: [index], message: "a document must be a string or an object with a string 'text'"});
                return z.NEVER;
            }
            texts.push(text);
        }
        return texts;
    });

function textOf(entry: unknown): string | null {
    const text = entry != null && typeof entry === "object" && !Array.isArray(entry) ? (entry as {text?: unknown}).text : undefined;
    return typeof text === "string" ? text : null;
}

/**
 * `POST /v1/rerank`: the body Jina's and Cohere's rerank APIs take, and llama-server's (its
 * `top_n`), which LangChain's, LlamaIndex's and Open WebUI's rerankers send; or, as llama-server
 * also takes it, Hugging Face TEI's (`texts` for `documents`, `return_text`), answered in TEI's
 * form. Cohere's other fields (`rank_fields`, `max_chunks_per_doc`) and TEI's (`raw_scores`,
 * `truncate`) are not read.
 */
export const rerankRequestSchema = z.object({
    /** Absent: the models folder's one reranker (TEI's API has no `model`, and llama-server's needs none). */
    model: z.string().min(1, "model must not be empty").nullish(),
    query: z.string().min(1, "query must not be empty"),
    documents: documentsField.optional(),
    /** TEI's name for the documents: the reply then takes TEI's form. */
    texts: documentsField.optional(),
    /** How many of the best results to return; absent: all of them. */
    top_n: z.number().int().min(1).nullish(),
    /** Whether each result carries its document's text (as `{text}`, Jina's and Cohere's v1 form). */
    return_documents: z.boolean().nullish(),
    /** TEI's: whether each result carries its text (as `text`). */
    return_text: z.boolean().nullish(),
    // Ollama's, as on every endpoint that loads a model: how long it stays loaded once idle after this request.
    keep_alive: keepAliveField
}).transform(({documents, texts, return_text: returnText, ...rest}, context) => {
    if (documents != null && texts != null) {
        context.issues.push({code: "custom", input: texts, path: ["texts"], message: "send the documents as 'documents' or as 'texts' (TEI's name), not both"});
        return z.NEVER;
    }
    const given = documents ?? texts;
    if (given == null) {
        context.issues.push({code: "invalid_type", expected: "array", input: undefined, path: ["documents"], message: "documents is required"});
        return z.NEVER;
    }
    return {...rest, documents: given, form: texts != null ? "tei" as const : "jina" as const, return_documents: texts != null ? returnText : rest.return_documents};
});

export type RerankRequest = z.infer<typeof rerankRequestSchema>;

/** Jina's and Cohere's v1 reply (llama-server's too). */
export type RerankResponse = {
    model: string,
    object: "list",
    /** Best first; `index` is the document's place in the request. */
    results: Array<{index: number, relevance_score: number, document?: {text: string}}>,
    usage: {prompt_tokens: number, total_tokens: number}
};

/** TEI's reply, as llama-server gives it for a request with `texts`: the results alone, best first. */
export type TeiRerankResponse = Array<{index: number, score: number, text?: string}>;
