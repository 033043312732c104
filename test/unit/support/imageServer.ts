import http, {type IncomingMessage, type ServerResponse} from "node:http";
import type {AddressInfo} from "node:net";

export type ImageServer = {
    /** `http://127.0.0.1:<port>` */
    origin: string,
    port: number,
    /** Paths requested so far, in order. */
    requested: string[],
    close(): Promise<void>
};

/** A local HTTP server answering each path with its handler (404 for others), for the image fetcher's tests. */
export async function startImageServer(routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void>): Promise<ImageServer> {
    const requested: string[] = [];
    const server = http.createServer((req, res) => {
        requested.push(req.url ?? "");
        const route = routes[req.url ?? ""];
        if (route == null) {
            res.writeHead(404).end("not found");
            return;
        }
        route(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const {port} = server.address() as AddressInfo;
    return {
        origin: `http://127.0.0.1:${port}`,
        port,
        requested,
        close: () => new Promise<void>((resolve) => {
            server.closeAllConnections();
            server.close(() => resolve());
        })
    };
}
