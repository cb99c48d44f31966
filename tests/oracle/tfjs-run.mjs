#!/usr/bin/env node
// Float reference ("oracle") for the gst-ax TF.js front-end: runs a TF.js
// graph model with TensorFlow.js itself and writes the raw outputs, so the
// compiler's float IR executor can be compared against them.
//
//   node tfjs-run.mjs MODEL_JSON INPUT.f32 OUTDIR
//        [--shape 1,256,256,3] [--outputs name1,name2] [--modules DIR]
//        [--backend wasm|cpu] [--fill NAME=VALUE[@D,D,...] ...]
//
// MODEL_JSON   model.json of a TF.js graph model; its weight shards are read
//              from the same directory (no network, no tfjs-node).
// INPUT.f32    the model's (single) input as raw little-endian float32,
//              NHWC as the model expects.
// --shape      input shape; default: the model's input shape with unknown
//              dimensions (-1) taken as 1. The file size must match.
// --outputs    node names to fetch (e.g. "Identity:0" or "StatefulPartitioned
//              Call/model/conv/Relu"); default: the model's outputs.
// --modules    the directory holding node_modules with the pinned TF.js
//              packages; default $GST_AX_DATA_DIR/oracle, then the directory
//              of this script (scripts/fetch-data.sh installs them into
//              <data dir>/oracle).
// --backend    wasm (default; falls back to cpu if it cannot initialise) or
//              cpu.
// --fill       another input of the model, every element VALUE, of the
//              shape D,D,... (a scalar without @); repeatable. INPUT.f32
//              then goes to the one input no --fill names (a model of
//              several inputs: recurrent states, a ratio).
//
// Writes OUTDIR/<i>.f32 (output i as little-endian float32, whatever its
// dtype: int32/bool outputs are converted) and OUTDIR/outputs.json:
//   { "backend": "wasm", "input": {"name":..., "shape":[...]},
//     "outputs": [ {"index":0, "name":..., "shape":[...], "dtype":"float32",
//                   "file":"0.f32"}, ... ],
//     "load_ms": ..., "execute_ms": ... }
// Exit status 0 on success, 1 on any error (message on stderr), 2 on usage.

import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const USAGE = 'usage: node tfjs-run.mjs MODEL_JSON INPUT.f32 OUTDIR ' +
  '[--shape 1,256,256,3] [--outputs name1,name2] [--modules DIR] ' +
  '[--backend wasm|cpu] [--fill NAME=VALUE[@D,D,...] ...]';
const FLOAT32_BYTES = 4;
const EXIT_ERROR = 1;
const EXIT_USAGE = 2;

function die(msg, code = EXIT_ERROR) {
  process.stderr.write(`tfjs-run: ${msg}\n`);
  process.exit(code);
}

function parseArgs(argv) {
  const args = { positional: [], shape: null, outputs: null, modules: null,
    backend: 'wasm', fills: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length)
        die(`${a} needs a value\n${USAGE}`, EXIT_USAGE);
      return argv[++i];
    };
    if (a === '--shape') {
      const s = value();
      args.shape = s.split(',').map((d) => Number(d));
      if (args.shape.some((d) => !Number.isInteger(d) || d <= 0))
        die(`--shape "${s}": expected positive integers separated by commas`,
          EXIT_USAGE);
    } else if (a === '--outputs') {
      args.outputs = value().split(',').filter((n) => n.length > 0);
    } else if (a === '--fill') {
      const f = value();
      const m = /^([^=]+)=([^@]+)(?:@([0-9,]+))?$/.exec(f);
      const v = m ? Number(m[2]) : NaN;
      if (!m || !Number.isFinite(v))
        die(`--fill "${f}": expected NAME=VALUE or NAME=VALUE@D,D,...`,
          EXIT_USAGE);
      const shape = m[3] ? m[3].split(',').map((d) => Number(d)) : [];
      if (shape.some((d) => !Number.isInteger(d) || d <= 0))
        die(`--fill "${f}": the shape's dims must be positive integers`,
          EXIT_USAGE);
      args.fills.push({ name: m[1], value: v, shape });
    } else if (a === '--modules') {
      args.modules = value();
    } else if (a === '--backend') {
      args.backend = value();
      if (args.backend !== 'wasm' && args.backend !== 'cpu')
        die(`--backend "${args.backend}": expected wasm or cpu`, EXIT_USAGE);
    } else if (a === '-h' || a === '--help') {
      process.stdout.write(USAGE + '\n');
      process.exit(0);
    } else if (a.startsWith('--')) {
      die(`unknown option ${a}\n${USAGE}`, EXIT_USAGE);
    } else {
      args.positional.push(a);
    }
  }
  if (args.positional.length !== 3)
    die(USAGE, EXIT_USAGE);
  return args;
}

// The TF.js packages live outside the source tree (in the data dir), so
// they are resolved from there rather than from this script's location.
function findModules(explicit) {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [];
  if (explicit)
    candidates.push(explicit);
  if (process.env.GST_AX_DATA_DIR)
    candidates.push(path.join(process.env.GST_AX_DATA_DIR, 'oracle'));
  candidates.push(here);
  for (const dir of candidates) {
    if (fs.existsSync(path.join(dir, 'node_modules', '@tensorflow',
        'tfjs-core', 'package.json')))
      return dir;
  }
  die('cannot find node_modules/@tensorflow/tfjs-core in: ' +
    candidates.join(', ') + ' (run scripts/fetch-data.sh, or pass --modules)');
}

function readJson(file) {
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    die(`cannot read ${file}: ${e.message}`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    die(`${file}: not valid JSON: ${e.message}`);
  }
}

// An IOHandler that reads model.json and its shards from disk, in manifest
// order (group by group, path by path), which is the order the weight
// specs' bytes are laid out in.
function fileIOHandler(modelJsonPath) {
  return {
    load: async () => {
      const model = readJson(modelJsonPath);
      if (!model.modelTopology)
        die(`${modelJsonPath}: no "modelTopology" (not a TF.js graph model)`);
      const dir = path.dirname(modelJsonPath);
      const weightSpecs = [];
      const shards = [];
      for (const group of model.weightsManifest || []) {
        for (const p of group.paths || []) {
          const shardPath = path.join(dir, decodeURIComponent(p));
          try {
            shards.push(fs.readFileSync(shardPath));
          } catch (e) {
            die(`${modelJsonPath}: cannot read weight shard ${shardPath}: ` +
              e.message);
          }
        }
        weightSpecs.push(...(group.weights || []));
      }
      const all = Buffer.concat(shards);
      const weightData = all.buffer.slice(all.byteOffset,
        all.byteOffset + all.byteLength);
      return {
        modelTopology: model.modelTopology,
        format: model.format,
        generatedBy: model.generatedBy,
        convertedBy: model.convertedBy,
        signature: model.signature,
        userDefinedMetadata: model.userDefinedMetadata,
        modelInitializer: model.modelInitializer,
        weightSpecs,
        weightData,
      };
    },
  };
}

async function initBackend(tf, req, wanted) {
  if (wanted === 'wasm') {
    try {
      const wasm = req('@tensorflow/tfjs-backend-wasm');
      const wasmFile = req.resolve(
        '@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm');
      wasm.setWasmPaths(path.dirname(wasmFile) + path.sep);
      if (await tf.setBackend('wasm')) {
        await tf.ready();
        return 'wasm';
      }
      process.stderr.write('tfjs-run: the wasm backend did not initialise; ' +
        'falling back to the cpu backend\n');
    } catch (e) {
      process.stderr.write(`tfjs-run: the wasm backend failed (${e.message});` +
        ' falling back to the cpu backend\n');
    }
  }
  req('@tensorflow/tfjs-backend-cpu');
  if (!(await tf.setBackend('cpu')))
    die('the cpu backend did not initialise either');
  await tf.ready();
  return 'cpu';
}

function inputShape(info, explicit) {
  if (explicit)
    return explicit;
  if (!info.shape)
    die(`the model's input "${info.name}" has no known shape; pass --shape`);
  return info.shape.map((d) => (d === null || d < 0 ? 1 : d));
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const [modelJson, inputFile, outDir] = args.positional;

  const modulesDir = findModules(args.modules);
  const req = createRequire(path.join(modulesDir, 'package.json'));
  const tf = req('@tensorflow/tfjs-core');
  const converter = req('@tensorflow/tfjs-converter');
  let backend = await initBackend(tf, req, args.backend);
  process.stderr.write(`tfjs-run: TF.js ${tf.version_core}, ` +
    `backend ${backend}\n`);

  const t0 = performance.now();
  const model = await converter.loadGraphModel(fileIOHandler(modelJson));
  const loadMs = performance.now() - t0;
  const bare = (n) => n.replace(/:0$/, '');
  for (const f of args.fills)
    if (!model.inputs.some((i) => bare(i.name) === f.name))
      die(`--fill: the model has no input "${f.name}" (its inputs: ` +
        model.inputs.map((i) => bare(i.name)).join(', ') + ')');
  const free = model.inputs.filter((i) =>
    !args.fills.some((f) => f.name === bare(i.name)));
  if (free.length !== 1)
    die(`${modelJson}: ${model.inputs.length} inputs, ${free.length} not ` +
      'given by --fill; INPUT.f32 feeds exactly one');
  const info = free[0];

  let raw;
  try {
    raw = fs.readFileSync(inputFile);
  } catch (e) {
    die(`cannot read ${inputFile}: ${e.message}`);
  }
  if (raw.byteLength % FLOAT32_BYTES !== 0)
    die(`${inputFile}: ${raw.byteLength} bytes is not a whole number of ` +
      'float32 values');
  const nFloats = raw.byteLength / FLOAT32_BYTES;
  const shape = inputShape(info, args.shape);
  const want = shape.reduce((a, b) => a * b, 1);
  if (want !== nFloats)
    die(`${inputFile}: ${nFloats} float32 values, shape [${shape}] needs ` +
      `${want}`);
  const values = new Float32Array(nFloats);
  const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  for (let i = 0; i < nFloats; i++)
    values[i] = view.getFloat32(i * FLOAT32_BYTES, true);
  // an integer input (MoveNet's int32 pixels) takes the values as its
  // dtype; pass whole numbers for it
  let input = tf.tensor(values, shape, info.dtype || 'float32');
  if (args.fills.length > 0) {
    const named = { [bare(info.name)]: input };
    for (const f of args.fills) {
      const spec = model.inputs.find((i) => bare(i.name) === f.name);
      named[f.name] = tf.fill(f.shape, f.value, spec.dtype || 'float32');
    }
    input = named;
  }

  const outputNames = args.outputs || model.outputs.map((o) => o.name);
  const run = async () => {
    try {
      return model.execute(input, outputNames);
    } catch (e) {
      // Graphs with control flow or dynamic shapes can only run
      // asynchronously; the values are the same.
      if (!/executeAsync/.test(e.message))
        throw e;
      process.stderr.write('tfjs-run: the model needs executeAsync(); ' +
        'using it\n');
      return await model.executeAsync(input, outputNames);
    }
  };
  const t1 = performance.now();
  let results;
  try {
    results = await run();
  } catch (e) {
    // The wasm backend lacks some kernels the cpu one has (BatchMatMul of
    // int32, which facemesh-attention's spatial transformers use).
    if (backend !== 'wasm' || !/not yet supported/.test(e.message))
      throw e;
    process.stderr.write(`tfjs-run: the wasm backend cannot run the model ` +
      `(${e.message}); using the cpu backend\n`);
    backend = await initBackend(tf, req, 'cpu');
    results = await run();
  }
  if (!Array.isArray(results))
    results = [results];
  const outputs = [];
  fs.mkdirSync(outDir, { recursive: true });
  for (let i = 0; i < results.length; i++) {
    const t = results[i];
    const data = Float32Array.from(await t.data());
    const buf = Buffer.alloc(data.length * FLOAT32_BYTES);
    for (let j = 0; j < data.length; j++)
      buf.writeFloatLE(data[j], j * FLOAT32_BYTES);
    const file = `${i}.f32`;
    fs.writeFileSync(path.join(outDir, file), buf);
    outputs.push({ index: i, name: outputNames[i], shape: t.shape,
      dtype: t.dtype, file });
  }
  const executeMs = performance.now() - t1;
  const summary = {
    backend,
    tfjs_version: tf.version_core,
    model: path.resolve(modelJson),
    input: { name: info.name, shape },
    outputs,
    load_ms: Math.round(loadMs),
    execute_ms: Math.round(executeMs),
  };
  fs.writeFileSync(path.join(outDir, 'outputs.json'),
    JSON.stringify(summary, null, 2) + '\n');
  for (const o of outputs)
    process.stderr.write(`tfjs-run: output ${o.index} ${o.name} ` +
      `[${o.shape}] ${o.dtype}\n`);
  process.stderr.write(`tfjs-run: load ${summary.load_ms} ms, execute ` +
    `${summary.execute_ms} ms\n`);
}

main().catch((e) => die(e && e.stack ? e.stack : String(e)));
