import type {ListedModel} from "../../models/listedModel.js";
import type {ModelOccupancy} from "../../models/modelOccupancy.js";

/**
 * Whether this server should be sent new requests now: what `GET /health/ready` answers, for load
 * balancers, Kubernetes' readiness probe and container health checks. Liveness (`GET /health`) is
 * another question: a draining or saturated server is alive, and restarting it would only lose the
 * replies it is finishing.
 *
 * Not ready, each with the seconds a balancer may wait before asking again (`Retry-After`):
 * - shutting down (SIGTERM): the drain has begun, so traffic must go elsewhere before the listener closes;
 * - no model can be served: the models folder is empty, or every file in it is unavailable
 *   (llama-server's `/health` answers 503 while its one model loads, for the same reason);
 * - a model's queue is full: every sequence busy and `--max-queue` requests waiting, so the next
 *   request for it would get a 503 `server_busy` here.
 */
export type Readiness =
    | {ready: true}
    | {ready: false, reason: NotReadyReason, message: string, retryAfterSeconds: number};

export type NotReadyReason = "shutting_down" | "no_models" | "queue_full";

export type ReadinessFacts = {
    draining: boolean,
    /** The registry's listing: the folder's models and aliases, each with its status. */
    models: readonly Pick<ListedModel, "id" | "status">[],
    /** The registry's occupancy: each model holding or awaiting memory, and its sequences' use. */
    occupancy: readonly ModelOccupancy[],
    /** --max-queue: the requests that may wait per model before a 503. */
    maxQueue: number
};

/** A drain lasts as long as the replies it finishes: a balancer looks again after this. */
const drainingRetrySeconds = 5;
/** The models folder is rescanned every 2 s: a file copied in is seen within that. */
const noModelsRetrySeconds = 2;
/** A full queue empties as replies end; the same hint as a 503 server_busy. */
const queueFullRetrySeconds = 1;

export function readinessOf({draining, models, occupancy, maxQueue}: ReadinessFacts): Readiness {
    if (draining)
        return notReady("shutting_down", "The server is shutting down: it finishes the replies it has begun and takes no new ones.", drainingRetrySeconds);
    if (!models.some((model) => model.status !== "unavailable")) {
        const why = models.length === 0 ? "the models folder holds no model" : "every model in the models folder is unavailable (GET /v1/models says why)";
        return notReady("no_models", `No model can be served: ${why}.`, noModelsRetrySeconds);
    }
    const full = fullQueues(occupancy, maxQueue);
    if (full.length > 0)
        return notReady("queue_full", `The queue is full for ${full.join(", ")}: every sequence is busy and ${maxQueue} requests wait.`, queueFullRetrySeconds);
    return {ready: true};
}

/**
 * The models whose next request would be refused: every sequence leased and the queue at its bound
 * (engine/sequencePool.ts refuses exactly then), or as many waiting for the model's load as may.
 * A model being freed and its next load can share an id: their requests are added up.
 */
function fullQueues(occupancy: readonly ModelOccupancy[], maxQueue: number): string[] {
    const byModel = new Map<string, {waiting: number, running: number, sequences?: number, loaded: boolean}>();
    for (const entry of occupancy) {
        const facts = byModel.get(entry.id) ?? {waiting: 0, running: 0, loaded: false};
        if (entry.activity != null) {
            facts.waiting += entry.activity.waiting;
            facts.running += entry.activity.running;
            facts.sequences = entry.activity.sequences;
            facts.loaded = true;
        } else if (entry.state === "waiting" || entry.state === "loading")
            facts.waiting += entry.holds;
        byModel.set(entry.id, facts);
    }
    return [...byModel].filter(([, facts]) => {
        if (facts.waiting < maxQueue)
            return false;
        // Loaded: full only while no sequence is free (with --max-queue 0, a free sequence still takes a request).
        if (facts.loaded && facts.sequences != null)
            return facts.running >= facts.sequences;
        return facts.waiting > 0;
    }).map(([id]) => id);
}

function notReady(reason: NotReadyReason, message: string, retryAfterSeconds: number): Readiness {
    return {ready: false, reason, message, retryAfterSeconds};
}
