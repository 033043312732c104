import {parseBenchArgs} from "./args.js";
import {ensureBuilt} from "./build.js";
import {comparePaired, startChatserveContender} from "./pairedComparison.js";

/**
 * chatserve against itself with other flags: two servers on the same model, taking turns phase by
 * phase (see pairedComparison.ts). This is how a setting's cost or gain is measured without the
 * machine's drift between two separate `npm run bench` runs.
 *
 *   npm run bench:settings -- --b "--flash-attention off" [--a "..."] [model.gguf] [--runs N]
 *
 * `--a` (default: none) and `--b` are chatserve flags, added after the bench's own.
 */
const argv = process.argv.slice(2);
const sides = {a: "", b: ""};
const rest: string[] = [];
for (let index = 0; index < argv.length; index++) {
    const side = argv[index] === "--a" ? "a" : argv[index] === "--b" ? "b" : undefined;
    if (side != null && argv[index + 1] != null)
        sides[side] = argv[++index]!;
    else
        rest.push(argv[index]!);
}
if (sides.b.trim() === "")
    throw new Error(`--b "<chatserve flags>" is required, e.g. --b "--flash-attention off"`);
const options = parseBenchArgs(rest, {out: "bench/results/versus-settings.json"});
ensureBuilt(options.build);

const startWith = (flags: string) => () => startChatserveContender(
    flags.trim() === "" ? "defaults" : `\`${flags.trim()}\``, options, flags.split(/\s+/).filter((flag) => flag !== ""));

const table = await comparePaired(
    {first: startWith(sides.b), second: startWith(sides.a)},
    options,
    (message) => process.stderr.write(`bench: ${message}\n`)
);
process.stdout.write([`## chatserve with other settings (${options.modelPath}, ${options.runs} runs, phase by phase in turn, medians)`, "", table].join("\n"));
