import type http from "node:http";
import type {NextFunction, Request, Response} from "express";
import {ServiceShuttingDownError} from "../errors.js";

/**
 * The drain that begins a shutdown (SIGTERM, a rolling restart): the server keeps listening while
 * the replies it had begun finish, so that what arrives meanwhile gets an answer a client or a
 * balancer can act on, a 503 `shutting_down` with `Retry-After` (nginx resends it to another
 * replica, the SDKs retry it), rather than a refused connection; `GET /health/ready` says 503 from
 * the first moment. server.ts closes the listener once `settled()` resolves (or its grace period ends).
 */
export class Drain {
    private began = false;
    /** Responses not yet ended: the ones open when the drain began are what it waits for. */
    private readonly open = new Set<http.ServerResponse>();
    private waitingFor: Set<http.ServerResponse> | null = null;
    private settle: (() => void) | null = null;

    public get draining(): boolean {
        return this.began;
    }

    /** Counts the server's requests from now on (call before it listens). */
    public track(server: http.Server): void {
        server.on("request", (_req: http.IncomingMessage, res: http.ServerResponse) => {
            this.open.add(res);
            res.once("close", () => this.ended(res));
        });
    }

    /** The drain begins; resolves once every response open now has ended. */
    public async begin(): Promise<void> {
        this.began = true;
        this.waitingFor = new Set(this.open);
        await new Promise<void>((resolve) => {
            this.settle = resolve;
            this.check();
        });
    }

    /** Express middleware: once draining, API requests get the 503 (health and metrics stay answered before it). */
    public refuseNewRequests() {
        return (_req: Request, res: Response, next: NextFunction) => {
            if (!this.began)
                return next();
            // This connection has nothing more to do here: a client's next request should open one elsewhere.
            res.setHeader("Connection", "close");
            throw new ServiceShuttingDownError("The server is shutting down: send this request again, to another replica or once it has restarted.");
        };
    }

    private ended(res: http.ServerResponse): void {
        this.open.delete(res);
        if (this.waitingFor?.delete(res) === true)
            this.check();
    }

    private check(): void {
        if (this.waitingFor != null && this.waitingFor.size === 0)
            this.settle?.();
    }
}
