// npm run bench:lookup-bookkeeping
//
// What lookup decoding's bookkeeping costs every request, apart from any draft: indexing the whole
// prompt for lookup (draftSources.ts LookupDrafts, ngramIndex.ts), adding it to the model's pool
// (PoolDrafts, lookupPool.ts), and proposing and following at each step. The prompt is real text in
// the bench model's real tokenizer: the rewrite turn's source file (bench/sourceFile.ts), made as
// long as each size asks (its functions numbered on, so no two lines are alike). No model runs: the
// tokenizer is loaded alone. Median of 20 repetitions after 5 untimed ones (the JIT warmed up).
import path from "node:path";
import {getLlama, type Token} from "node-llama-cpp";
import {LookupDrafts, PoolDrafts} from "../src/engine/speculation/draftSources.js";
import {LookupPool} from "../src/engine/speculation/lookupPool.js";
import {projectRoot} from "./args.js";
import {sourceFile} from "./sourceFile.js";
import {median} from "./stats.js";

const modelPath = path.resolve(projectRoot, "../shared/models/bench-random-smollm2-135m-shape-q8_0.gguf");
const llama = await getLlama({gpu: false});
const model = await llama.loadModel({modelPath, vocabOnly: true});

/** The tokens of a source file of about `count` tokens. */
function promptOf(count: number): Token[] {
    let lines = 300;
    for (;;) {
        const tokens = model.tokenize(sourceFile(lines));
        if (tokens.length >= count)
            return tokens.slice(0, count);
        lines = Math.ceil(lines * 1.2 * count / tokens.length);
    }
}

function timed(work: () => void): number {
    const start = performance.now();
    work();
    return performance.now() - start;
}

console.log("| prompt tokens | index the prompt (ms) | add it to the pool (ms) | propose and follow, per step (µs) |");
console.log("|---:|---:|---:|---:|");
for (const size of [1_000, 6_000, 30_000, 100_000]) {
    const prompt = promptOf(size);
    // A reply that follows the prompt's own text for a while, then text of its own: both kinds of step.
    const reply = [...prompt.slice(size / 2, size / 2 + 500), ...model.tokenize(sourceFile(40).toUpperCase())];
    const pool = new LookupPool();
    const index: number[] = [], added: number[] = [], steps: number[] = [];
    for (let repetition = 0; repetition < 25; repetition++) {
        let lookup: LookupDrafts | undefined, inPool: PoolDrafts | undefined;
        const indexing = timed(() => lookup = new LookupDrafts(prompt));
        const adding = timed(() => inPool = new PoolDrafts(pool, prompt));
        const following = timed(() => {
            for (const token of reply) {
                lookup!.propose(16);
                inPool!.propose(16);
                lookup!.observe([token]);
                inPool!.observe([token]);
            }
        }) / reply.length * 1000;
        if (repetition >= 5) {
            index.push(indexing);
            added.push(adding);
            steps.push(following);
        }
    }
    console.log(`| ${prompt.length.toLocaleString("en-US")} | ${median(index).toFixed(2)} | ${median(added).toFixed(2)} | ${median(steps).toFixed(1)} |`);
}
await model.dispose();
process.exit(0);
