import {NoBinaryFoundError} from "node-llama-cpp";
import {z} from "zod";

/**
 * Why the server could not start, in one line for the terminal: the common causes get a sentence
 * that says what to do, anything else its message. A stack trace says nothing to a user.
 */
export function describeStartupFailure(error: unknown, {host, port, gpu}: {host?: string, port?: number, gpu?: string} = {}): string {
    if (error instanceof z.ZodError) {
        const issue = error.issues[0]!;
        return `invalid setting '${issue.path.join(".")}': ${issue.message}`;
    }
    // node-llama-cpp's class leaves `name` as "Error": only the class tells.
    if (error instanceof NoBinaryFoundError)
        return `no ${gpu ?? "GPU"} build of llama.cpp runs on this machine: start with --gpu auto (or cpu)`;
    const {code, message} = error as {code?: unknown, message?: unknown};
    switch (code) {
        case "EADDRINUSE":
            return `port ${port ?? "(--port)"} is already in use: stop what is listening there, or pick another with --port`;
        case "EADDRNOTAVAIL":
        case "ENOTFOUND":
            return `cannot listen on host '${host ?? "(--host)"}': use an address of this machine (127.0.0.1, 0.0.0.0) with --host`;
        case "EACCES":
            return `not allowed to listen on port ${port ?? "(--port)"}: ports below 1024 need privileges; pick another with --port`;
        case "ENOENT":
        case "ENOTDIR":
            return `the models folder cannot be read (${String(message)}): point --models at a folder`;
        default:
            return typeof message === "string" && message !== "" ? message.split("\n")[0]! : String(error);
    }
}
