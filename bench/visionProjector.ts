import {mkdir, rm, symlink} from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {parseArgs} from "node:util";
import {readGgufFileInfo} from "node-llama-cpp";
import {encodeGguf, u32, writeFileAtomic} from "../test/fixtures/gguf/ggufWriter.js";
import {mlpProjectorFile, type VitShape} from "../test/fixtures/gguf/visionProjectors.js";
import {projectRoot} from "./args.js";

/**
 * Writes a random-weight projector (mmproj) with the tensor shapes of LLaVA-1.5's vision side, for
 * image encode timings: CLIP ViT-L/14 at 336 px (576 patches + a class token, 1024 wide, 16 heads,
 * MLP 4096) with the 23 blocks LLaVA's converter keeps (it drops the last; clip.cpp then runs 22),
 * and LLaVA's 2-layer MLP projector, whose output width is the text model's n_embd (576 for the
 * default bench model, SmolLM2-135M's shapes). One image is 576 tokens. Matrices are Q8_0, as in
 * an mmproj quantized to Q8_0; the patch convolution, embeddings, norms and biases stay F32 (real
 * files have an F16 convolution). Speed depends on shapes and types, not on weight values.
 *
 * The projector is written next to a link to the model, named by the pairing rule (`foo.gguf` and
 * `mmproj-foo.gguf`), so the folder can be served as it is:
 *
 *   npm run bench:vision-model [-- --model FILE --out-dir DIR]
 *   llama-server -m DIR/foo.gguf --mmproj DIR/mmproj-foo.gguf
 */
const LLAVA_15_VIT: VitShape = {imageSize: 336, patchSize: 14, nEmbd: 1024, nFf: 4096, nHead: 16, nLayer: 23};

const {values} = parseArgs({options: {model: {type: "string"}, "out-dir": {type: "string"}}});
const model = path.resolve(values.model ?? path.join(projectRoot, "../shared/models/bench-random-smollm2-135m-shape-q8_0.gguf"));
const outDir = path.resolve(values["out-dir"] ?? path.join(os.tmpdir(), "chatserve-bench", "vision"));
// mtmd refuses a projector whose output width is not the text model's n_embd.
const {metadata} = await readGgufFileInfo(model, {readTensorInfo: false});
const textEmbd = (metadata as unknown as Record<string, {embedding_length: number}>)[metadata.general.architecture]!.embedding_length;

const file = mlpProjectorFile(LLAVA_15_VIT, textEmbd, {q8_0: true});
file.metadata["general.file_type"] = u32(7); // mostly Q8_0
const stem = path.basename(model, ".gguf");
const modelLink = path.join(outDir, `${stem}.gguf`);
const projector = path.join(outDir, `mmproj-${stem}.gguf`);

await mkdir(outDir, {recursive: true});
await rm(modelLink, {force: true});
await symlink(model, modelLink);
await writeFileAtomic(projector, encodeGguf(file));
console.log(JSON.stringify({model: modelLink, mmproj: projector}));
