#!/usr/bin/env node
// The onnxruntime baseline of benchmark-simnpu-float: runs an ONNX model
// with onnxruntime-node on one thread (intraOpNumThreads = 1,
// interOpNumThreads = 1, sequential execution, all graph optimisations)
// and reports the time of its fastest run.
//
//   node ort-run.mjs MODEL.onnx INPUT.f32 OUTPUT.f32 --shape 1,3,224,224
//        --runs N --modules DIR
//
// INPUT.f32    the model's single input, raw little-endian float32.
// OUTPUT.f32   its first output is written here, raw float32.
// --runs       timed runs after one untimed warm-up run.
// --modules    the directory holding node_modules with the pinned
//              onnxruntime-node (benchmark-simnpu-float installs it into
//              <data dir>/ort with npm ci from bench/simnpu/ort).
//
// Prints one line of JSON (ms_per_run: wall time of the fastest run,
// cpu_ms: the process's CPU time of the cheapest):
// {"ms_per_run": ..., "cpu_ms": ..., "runs": N,
// "output_shape": [...]}. Exit status 0 on success, 1 on any error
// (message on stderr), 2 on usage.

import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { createRequire } from 'node:module';

const USAGE = 'usage: node ort-run.mjs MODEL.onnx INPUT.f32 OUTPUT.f32 ' +
  '--shape 1,3,224,224 --runs N --modules DIR';
const EXIT_ERROR = 1;
const EXIT_USAGE = 2;
const FLOAT32_BYTES = 4;

function die(msg, code = EXIT_ERROR) {
  process.stderr.write(`ort-run: ${msg}\n`);
  process.exit(code);
}

function parseArgs(argv) {
  const args = { positional: [], shape: null, runs: 0, modules: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length)
        die(`${a} needs a value\n${USAGE}`, EXIT_USAGE);
      return argv[++i];
    };
    if (a === '--shape')
      args.shape = value().split(',').map(Number);
    else if (a === '--runs')
      args.runs = Number(value());
    else if (a === '--modules')
      args.modules = value();
    else if (a.startsWith('--'))
      die(`unknown option ${a}\n${USAGE}`, EXIT_USAGE);
    else
      args.positional.push(a);
  }
  if (args.positional.length !== 3 || args.shape === null ||
      args.modules === null || !Number.isInteger(args.runs) || args.runs < 1)
    die(USAGE, EXIT_USAGE);
  if (args.shape.some((d) => !Number.isInteger(d) || d < 1))
    die(`--shape wants positive integers, got ${args.shape.join(',')}`,
        EXIT_USAGE);
  return args;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const [modelPath, inputPath, outputPath] = args.positional;
  const require = createRequire(path.join(path.resolve(args.modules),
      'package.json'));
  let ort;
  try {
    ort = require('onnxruntime-node');
  } catch (e) {
    die(`cannot load onnxruntime-node from ${args.modules}: ${e.message}`);
  }
  const want = args.shape.reduce((a, b) => a * b, 1);
  const raw = fs.readFileSync(inputPath);
  if (raw.length !== want * FLOAT32_BYTES)
    die(`${inputPath}: ${raw.length} bytes, expected ${want * FLOAT32_BYTES}` +
        ` for shape ${args.shape.join(',')}`);
  const data = new Float32Array(want);
  for (let i = 0; i < want; i++)
    data[i] = raw.readFloatLE(i * FLOAT32_BYTES);

  const session = await ort.InferenceSession.create(modelPath, {
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
  const feeds = {
    [session.inputNames[0]]: new ort.Tensor('float32', data, args.shape),
  };
  let result = await session.run(feeds);
  // the fastest run: the one least disturbed by other work on the host
  // and the process's CPU time of its cheapest run (onnxruntime on one
  // thread, node idle meanwhile)
  let best = Infinity;
  let bestCpu = Infinity;
  for (let r = 0; r < args.runs; r++) {
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    result = await session.run(feeds);
    best = Math.min(best, Number(process.hrtime.bigint() - t0));
    const c = process.cpuUsage(c0);
    bestCpu = Math.min(bestCpu, (c.user + c.system) / 1e3);
  }
  const out = result[session.outputNames[0]];
  if (out.type !== 'float32')
    die(`output ${session.outputNames[0]} is ${out.type}, expected float32`);
  const buf = Buffer.alloc(out.data.length * FLOAT32_BYTES);
  for (let i = 0; i < out.data.length; i++)
    buf.writeFloatLE(out.data[i], i * FLOAT32_BYTES);
  fs.writeFileSync(outputPath, buf);
  process.stdout.write(JSON.stringify({
    ms_per_run: best / 1e6,
    cpu_ms: bestCpu,
    runs: args.runs,
    output_shape: out.dims,
  }) + '\n');
}

main().catch((e) => die(e.stack || String(e)));
