import {sendTurn, type TurnResult} from "./chatTurns.js";

/**
 * Requests sent without pause by a few concurrent clients while a test kills or restarts replicas:
 * chat completions (their conversations keyed by x-chatserve-session) and Anthropic Messages (keyed
 * by metadata.user_id, read from the body by nginx), streamed and not, in turn. It counts progress
 * in requests answered, so a test waits for load to have happened, never for time.
 */
export class BackgroundLoad {
    public readonly results: TurnResult[] = [];
    private stopped = false;
    private readonly workers: Array<Promise<void>>;
    private waiters: Array<{count: number, resolve: () => void}> = [];

    public constructor(baseUrl: string, apiKey: string, {clients = 4, conversations = 24} = {}) {
        let next = 0;
        this.workers = Array.from({length: clients}, async () => {
            while (!this.stopped) {
                const index = next++;
                const conversation = `load-${index % conversations}`;
                const result = await sendTurn({
                    baseUrl, apiKey, conversation, source: index % 4 < 2 ? "x-chatserve-session" : "metadata.user_id", stream: index % 2 === 1,
                    messages: [{role: "user", content: `Load request ${index} of conversation ${conversation}.`}]
                });
                this.results.push(result);
                this.waiters = this.waiters.filter((waiter) => this.results.length < waiter.count || (waiter.resolve(), false));
            }
        });
    }

    /** Resolves once `more` further requests have been answered (or have failed). */
    public async progress(more: number): Promise<void> {
        const count = this.results.length + more;
        await new Promise<void>((resolve) => this.waiters.push({count, resolve}));
    }

    /** Stops sending; resolves when the requests under way have ended, with every result. */
    public async stop(): Promise<TurnResult[]> {
        this.stopped = true;
        await Promise.all(this.workers);
        return this.results;
    }
}
