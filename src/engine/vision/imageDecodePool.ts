import os from "node:os";
import {ServerBusyError} from "../../errors.js";

/** A decode waiting for a slot: `leave` takes it out of the queue and rejects it with `error`. */
type Queued = {start: () => void, leave: (error: unknown) => void};

/**
 * The server's image decodes (reading a PNG or JPEG and resizing it for a projector: native code on
 * a thread of its own, native/vision.cpp), a few at a time. Unbounded, each request's image got a
 * thread at once, before the request was admitted anywhere, and kept it after its client left.
 *
 * At most `concurrency` run at once; the rest wait first come first served, at most `maxQueue` of
 * them (--max-queue, as requests waiting for a sequence), and one more is refused with the same 503
 * `server_busy`. A waiting decode whose signal aborts leaves the queue and never starts. A running one
 * cannot be stopped inside the decoder: its caller is answered at once, its result is dropped when
 * it comes, and its slot is free only then (the thread really is busy until then), so abandoned
 * work never holds more than the slots it is actually using.
 */
export class ImageDecodePool {
    private readonly waiting: Queued[] = [];
    private active = 0;
    private begun = 0;

    public constructor(public readonly concurrency: number, private readonly maxQueue: number) {}

    /** Decodes running now (abandoned ones included, until their native call returns). */
    public get running(): number {
        return this.active;
    }

    public get queued(): number {
        return this.waiting.length;
    }

    /** Decodes started since the server started (one whose request left while it waited never is). */
    public get started(): number {
        return this.begun;
    }

    /** Runs `work` when a slot is free; rejects with the signal's reason once aborted, whatever `work` is doing. */
    public run<T>(work: () => Promise<T>, signal: AbortSignal): Promise<T> {
        if (signal.aborted)
            return Promise.reject(signal.reason);
        return new Promise<T>((resolve, reject) => {
            const onAbortWhileQueued = () => queued.leave(signal.reason);
            const start = () => {
                signal.removeEventListener("abort", onAbortWhileQueued);
                this.active++;
                this.begun++;
                const onAbort = () => reject(signal.reason);
                signal.addEventListener("abort", onAbort, {once: true});
                let running: Promise<T>;
                try {
                    running = work();
                } catch (error) {
                    running = Promise.reject(error);
                }
                running.then(resolve, reject).finally(() => {
                    signal.removeEventListener("abort", onAbort);
                    this.active--;
                    this.next();
                });
            };
            const queued: Queued = {
                start,
                leave: (error) => {
                    signal.removeEventListener("abort", onAbortWhileQueued);
                    const index = this.waiting.indexOf(queued);
                    if (index >= 0)
                        this.waiting.splice(index, 1);
                    reject(error);
                }
            };
            if (this.active < this.concurrency)
                return start();
            if (this.waiting.length >= this.maxQueue)
                return reject(new ServerBusyError(1));
            signal.addEventListener("abort", onAbortWhileQueued, {once: true});
            this.waiting.push(queued);
        });
    }

    private next(): void {
        while (this.active < this.concurrency && this.waiting.length > 0)
            this.waiting.shift()!.start();
    }
}

/**
 * How many images decode at once. A decode is one native thread of stb_image and resizing at full
 * speed for up to a second or two; llama.cpp's inference threads spin-wait on each other at every
 * barrier (threads.ts), so a decode on a core they use slows every stream's step while it runs. One
 * at a time always (else no image would ever decode); a second only where the process has a core
 * beyond the inference threads and the JS thread. Never more than two: the cores left over are few,
 * and a queue of decodes is better than many half-speed ones.
 */
export function imageDecodeConcurrency(inferenceThreads: number, available: number = os.availableParallelism()): number {
    return Math.max(1, Math.min(2, available - inferenceThreads - 1));
}
