#!/usr/bin/env node
// Float reference ("oracle") for the gst-ax ONNX front-end: runs an ONNX
// model with onnxruntime (the CPU provider of onnxruntime-node) and writes
// the raw outputs, so the compiler's float IR executor can be compared
// against them.
//
//   node ort-run.mjs MODEL.onnx OUTDIR NAME=D0,D1,...:INPUT.f32 ...
//        [--modules DIR]
//
// MODEL.onnx   the model, its weights inside.
// NAME=...     one per graph input: its name, its shape, and a file of raw
//              little-endian float32 values (the size must match).
// --modules    the directory holding node_modules with the pinned
//              onnxruntime-node; default $GST_AX_DATA_DIR/oracle, then the
//              directory of this script (scripts/fetch-data.sh installs it
//              into <data dir>/oracle).
//
// Writes OUTDIR/<i>.f32 (output i as little-endian float32, whatever its
// type) and OUTDIR/outputs.json:
//   { "outputs": [ {"index":0, "name":..., "shape":[...], "type":"float32",
//                   "file":"0.f32"}, ... ] }
// Exit status 0 on success, 1 on any error (message on stderr), 2 on usage.

import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const USAGE = 'usage: node ort-run.mjs MODEL.onnx OUTDIR ' +
  'NAME=D0,D1,...:INPUT.f32 ... [--modules DIR]';
const FLOAT32_BYTES = 4;
const EXIT_ERROR = 1;
const EXIT_USAGE = 2;

function die(msg, code = EXIT_ERROR) {
  process.stderr.write(`ort-run: ${msg}\n`);
  process.exit(code);
}

function parseArgs(argv) {
  const args = { positional: [], inputs: [], modules: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--modules') {
      if (i + 1 >= argv.length)
        die(`--modules needs a value\n${USAGE}`, EXIT_USAGE);
      args.modules = argv[++i];
    } else if (a === '-h' || a === '--help') {
      process.stdout.write(USAGE + '\n');
      process.exit(0);
    } else if (a.startsWith('--')) {
      die(`unknown option ${a}\n${USAGE}`, EXIT_USAGE);
    } else if (args.positional.length < 2) {
      args.positional.push(a);
    } else {
      const m = /^([^=]+)=([0-9,]+):(.+)$/.exec(a);
      if (!m)
        die(`input "${a}": expected NAME=D0,D1,...:FILE.f32`, EXIT_USAGE);
      const shape = m[2].split(',').map((d) => Number(d));
      if (shape.some((d) => !Number.isInteger(d) || d < 0))
        die(`input "${a}": the shape must be non-negative integers`,
          EXIT_USAGE);
      args.inputs.push({ name: m[1], shape, file: m[3] });
    }
  }
  if (args.positional.length !== 2 || args.inputs.length === 0)
    die(USAGE, EXIT_USAGE);
  return args;
}

// onnxruntime-node lives outside the source tree (in the data dir).
function findModules(explicit) {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [];
  if (explicit)
    candidates.push(explicit);
  if (process.env.GST_AX_DATA_DIR)
    candidates.push(path.join(process.env.GST_AX_DATA_DIR, 'oracle'));
  candidates.push(here);
  for (const dir of candidates) {
    if (fs.existsSync(path.join(dir, 'node_modules', 'onnxruntime-node',
        'package.json')))
      return dir;
  }
  die('cannot find node_modules/onnxruntime-node in: ' +
    candidates.join(', ') + ' (run scripts/fetch-data.sh, or pass --modules)');
}

function readInput(input, ort) {
  let buf;
  try {
    buf = fs.readFileSync(input.file);
  } catch (e) {
    die(`cannot read ${input.file}: ${e.message}`);
  }
  const count = input.shape.reduce((a, b) => a * b, 1);
  if (buf.length !== count * FLOAT32_BYTES)
    die(`${input.file}: ${buf.length} bytes; input "${input.name}" of shape ` +
      `[${input.shape}] needs ${count * FLOAT32_BYTES}`);
  const data = new Float32Array(count);
  for (let i = 0; i < count; i++)
    data[i] = buf.readFloatLE(i * FLOAT32_BYTES);
  return new ort.Tensor('float32', data, input.shape);
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const [modelFile, outDir] = args.positional;
  const req = createRequire(path.join(findModules(args.modules), 'x.js'));
  const ort = req('onnxruntime-node');
  let session;
  try {
    session = await ort.InferenceSession.create(modelFile,
      { executionProviders: ['cpu'], graphOptimizationLevel: 'disabled' });
  } catch (e) {
    die(`${modelFile}: onnxruntime cannot load it: ${e.message}`);
  }
  const feeds = {};
  for (const input of args.inputs) {
    if (!session.inputNames.includes(input.name))
      die(`the model has no input "${input.name}" (it has: ` +
        `${session.inputNames.join(', ')})`);
    feeds[input.name] = readInput(input, ort);
  }
  let results;
  try {
    results = await session.run(feeds);
  } catch (e) {
    die(`${modelFile}: onnxruntime failed to run it: ${e.message}`);
  }
  fs.mkdirSync(outDir, { recursive: true });
  const outputs = session.outputNames.map((name, index) => {
    const t = results[name];
    const out = Buffer.alloc(t.data.length * FLOAT32_BYTES);
    for (let i = 0; i < t.data.length; i++)
      out.writeFloatLE(Number(t.data[i]), i * FLOAT32_BYTES);
    const file = `${index}.f32`;
    fs.writeFileSync(path.join(outDir, file), out);
    return { index, name, shape: t.dims.map(Number), type: t.type, file };
  });
  fs.writeFileSync(path.join(outDir, 'outputs.json'),
    JSON.stringify({ outputs }, null, 1) + '\n');
}

main().catch((e) => die(e.stack || String(e)));
