/**
 * Deterministic plain-English prompt text of roughly a given number of tokens.
 * Every prompt starts with a caller-chosen tag, so two prompts never share more than the chat
 * template's opening and the prefix cache cannot help (unless a phase wants it to).
 */

const words = (
    "the a river mountain city light small quiet morning evening garden window road old new green " +
    "house letter friend story water stone bright cold warm long short winter summer market bread " +
    "music teacher child forest path bridge cloud rain wind field table lamp book door paper clock " +
    "travel open close walk read write think remember learn build carry follow watch listen answer " +
    "and but with from under over near behind before after while because when where every many some"
).split(" ");

/** Measured with the SmolLM2 tokenizer: about 1.18 tokens per word of this text, full stops included. */
const tokensPerWord = 1.18;

/** mulberry32: a tiny seeded generator, so every run sees the same text for the same seed. */
function random(seed: number): () => number {
    let state = seed >>> 0;
    return () => {
        state = (state + 0x6d2b79f5) >>> 0;
        let t = state;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
}

function seedOf(text: string): number {
    let hash = 2166136261;
    for (const char of text)
        hash = Math.imul(hash ^ char.charCodeAt(0), 16777619);
    return hash >>> 0;
}

/** About `tokens` tokens of sentences, seeded by `tag`, starting with `tag` itself. */
export function promptText(tag: string, tokens: number): string {
    const next = random(seedOf(tag));
    const wordCount = Math.max(1, Math.round(tokens / tokensPerWord));
    const sentences: string[] = [];
    let written = 0;
    while (written < wordCount) {
        const length = Math.min(wordCount - written, 8 + Math.floor(next() * 8));
        const sentence = Array.from({length}, () => words[Math.floor(next() * words.length)]!).join(" ");
        sentences.push(sentence.charAt(0).toUpperCase() + sentence.slice(1) + ".");
        written += length;
    }
    return `${tag}: ${sentences.join(" ")}`;
}

/**
 * After the model's first request, every process measured (chatserve, either floor) generates
 * this many warm-up streams of `maxTokens` before any figure is taken: V8 optimises a function
 * only once it has run hot for a while, and with a single short warm-up the streaming path
 * (Node's stream and socket code, the generators) was still being optimised through the first
 * ~2,000 tokens measured. A server in use is warm.
 */
export const warmUpStreams = {count: 4, maxTokens: 256};

/** The warm-up streams' prompts, after the first request's. */
export function warmUpPrompt(index: number): string {
    return shortPrompt(`warm-up ${index + 1}`);
}

/** A short question (a few dozen tokens), unique per tag. */
export function shortPrompt(tag: string): string {
    return promptText(tag, 24) + " Continue this story.";
}

/** The prompts each phase sends in run `run`; the in-process floor uses the same ones. */
export const phasePrompts = {
    single: (run: number) => shortPrompt(`Run ${run} single`),
    /** The single stream's twin for a non-streamed request: as long, but not a cached prefix. */
    reply: (run: number) => shortPrompt(`Run ${run} replied`),
    /** And for the lean client's stream (leanStream.ts). */
    lean: (run: number) => shortPrompt(`Run ${run} leanly`),
    long: (run: number, tokens: number) => promptText(`Run ${run} long prompt`, tokens) + " Summarise this.",
    stream: (run: number, index: number) => shortPrompt(`Run ${run} stream ${index}`),
    system: (run: number, tokens: number) => promptText(`Run ${run} system prompt`, tokens),
    question: (run: number, turn: number) => shortPrompt(`Run ${run} question ${turn}`)
};
