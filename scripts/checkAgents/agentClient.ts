import type {AgentScript} from "../../test/fixtures/gguf/agentModel.js";

/** Where a client runs, and what it is pointed at. */
export type ClientSetup = {
    /** The client's installed executable. */
    bin: string,
    /** A home folder of its own (HOME and the XDG folders point into it): its config and state go there, not to the user's. */
    home: string,
    /** The project it works in: a fresh folder holding WORK_FILE. */
    workDir: string,
    /** chatserve's API base URL as the client should be given it (ends in /v1). */
    baseUrl: string,
    /** The model id to ask for: the client's own scripted model. */
    model: string,
    /** Any key: chatserve runs without one, but most clients refuse to start without some key. */
    apiKey: string,
    /** The task, in words. */
    task: string
};

/**
 * How to run a client non-interactively: once with `args`, then, where a client continues its
 * session, once more per `followUps` entry (further turns of the same conversation, in the same
 * home and work folder, with the same environment), each only after the one before exited 0.
 */
export type ClientRun = {args: string[], env: Record<string, string>, followUps?: string[][]};

/** One coding agent under test: its npm package, pinned, and how to point it at chatserve. */
export type AgentClient = {
    /** Its name in the report and in its model's id. */
    name: string,
    packageName: string,
    /** The exact version installed (checked against `npm view` when it was pinned). */
    version: string,
    /** Its executable's name in node_modules/.bin. */
    binName: string,
    /** The API it speaks to chatserve. */
    api: "chat completions" | "responses" | "messages",
    /** The tool call its scripted model makes: one of the client's own tools, with arguments that its schema accepts. */
    script(workDir: string): AgentScript,
    /** The call as chatserve's reply names it, where that differs from the tool name the model writes (a Responses namespace's function: `namespace.name`). */
    expectedCall?: string,
    /**
     * The client passes only if every request after its first reuses (chatserve's cached tokens) the
     * whole prompt of the request before: for a client whose runs make no side request with a prompt
     * of its own, so that each request extends the one before.
     */
    mustReusePrompt?: boolean,
    /** Writes the client's config into its home or work folder and says how to run it. */
    prepare(setup: ClientSetup): Promise<ClientRun>
};

/** The file in every client's work folder; a tool result that names it shows the client really ran its tool. */
export const WORK_FILE = "chatserve-check.txt";

/** What the scripted models answer once the tool's result is back. */
export const SCRIPTED_ANSWER = "The tool ran and its result came back to the model.";
