import {openEngineFloor} from "./engineFloor.js";
import {openFloor, type Floor, type FloorOptions} from "./inProcessFloor.js";

/**
 * A floor's child process (started by floorProcess.ts): `node --import tsx bench/floorChild.ts
 * KIND OPTIONS_JSON`, KIND `node-llama-cpp` (inProcessFloor.ts) or `engine` (engineFloor.ts).
 * Reports `{ready}` once loaded, then answers each `FloorRequest` from the parent with `{result}`
 * (or `{error}`); a disconnect ends it.
 */

export const floorKinds = {"node-llama-cpp": openFloor, engine: openEngineFloor} as const;
export type FloorKind = keyof typeof floorKinds;
export type FloorRequest = {phase: "single" | "long", run: number};

const kind = process.argv[2] as FloorKind;
const options = JSON.parse(process.argv[3] ?? "{}") as FloorOptions;
const send = (message: unknown) => process.send!(message);
floorKinds[kind](options).then((floor: Floor) => {
    send({ready: {backend: floor.backend, threads: floor.threads, loadMs: floor.loadMs}});
    process.on("message", (request: FloorRequest) => {
        floor[request.phase](request.run).then((result) => send({result}), (error: unknown) => send({error: String(error)}));
    });
    process.on("disconnect", () => void floor.dispose().finally(() => process.exit(0)));
}, (error: unknown) => {
    console.error(error);
    process.exit(1);
});
