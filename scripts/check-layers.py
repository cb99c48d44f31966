#!/usr/bin/env python3
# gst-ax: checks that sim-npu's layers include only downward.
#
# Reads every #include line of the C files and headers under sim-npu/ and
# fails when a file includes
#   - a header of a layer its own layer may not see (LAYERS below: the
#     layers each one stands on), which covers every upward include, or
#   - the private header (*-private.h) of another folder.
# Headers found outside sim-npu/ (GLib, common/axfile.h, config.h) and the
# public <simnpu/simnpu.h> are not checked. It also fails on a source file
# over MAX_LINES lines that LONG_FILES does not excuse.
#
# Usage: check-layers.py [SIM_NPU_DIR]

import os
import re
import sys

# Each layer (a folder of sim-npu/, lowest first) and the layers it may
# include the headers of. A folder's own headers, private ones included,
# are always visible to its files; sub-folders (ir/exec) are layers of
# their own.
LAYERS = {
    'file': [],
    'base': [],
    'kernels': ['base'],
    'ir': ['base', 'ir/exec'],
    'ir/exec': ['base', 'ir'],
    'graph': ['base', 'kernels', 'ir'],
    'device': ['base', 'graph'],
    'format': ['base', 'file', 'ir', 'graph', 'device'],
    'runtime': ['base', 'file', 'kernels', 'ir', 'ir/exec', 'graph',
                'device', 'format'],
    # simnpu-private.h: every layer's interface, for the tools, the tests
    # and the benchmarks; no layer includes it
    '.': ['base', 'kernels', 'ir', 'ir/exec', 'graph', 'device', 'format',
          'runtime'],
    'compiler': ['base', 'file', 'ir', 'ir/exec', 'graph', 'format'],
    'tools': ['.', 'base', 'file', 'kernels', 'ir', 'ir/exec', 'graph',
              'device', 'format', 'runtime', 'compiler'],
    'include': [],
}

MAX_LINES = 1000
# files allowed over MAX_LINES, and why
LONG_FILES = {
    'format/json.c':
        'the JSON graph loader: every member of the format, and the '
        'readers the per-op parsers of json-attrs.c call, on one loader '
        'record',
    'ir/ir-infer.c':
        'the shape rule of each IR op family, one function each, behind '
        'the op table of ir.c',
    'ir/ir-passes.c':
        'the IR passes (constant folding, fusion, pruning, the cuts of '
        'inputs and outputs), one section each',
    'tools/simnpu-annotate.c':
        'one tool: its options, the image loop and the drawing',
}

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def folder_of(root, path):
    rel = os.path.relpath(os.path.dirname(path), root)
    best = None
    for layer in LAYERS:
        if layer == '.':
            continue
        if rel == layer or rel.startswith(layer + '/'):
            if best is None or len(layer) > len(best):
                best = layer
    return best if best is not None else ('.' if rel == '.' else None)


def resolve(root, path, name):
    for d in (os.path.dirname(path), root, os.path.join(root, 'file'),
              os.path.join(root, 'include')):
        cand = os.path.normpath(os.path.join(d, name))
        if os.path.isfile(cand):
            return cand
    return None


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1
                           else os.path.join(here, '..', 'sim-npu'))
    errors = []
    long_files = []
    n_files = n_includes = 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for fn in sorted(filenames):
            if not fn.endswith(('.c', '.h')):
                continue
            path = os.path.join(dirpath, fn)
            rel = os.path.relpath(path, root)
            layer = folder_of(root, path)
            if layer is None:
                errors.append('%s: in no layer (add its folder to LAYERS '
                              'in %s)' % (rel, os.path.basename(__file__)))
                continue
            n_files += 1
            with open(path, encoding='utf-8') as f:
                lines = f.readlines()
            if len(lines) > MAX_LINES and rel not in LONG_FILES:
                long_files.append('%s: %d lines (over %d)' %
                                  (rel, len(lines), MAX_LINES))
            for lineno, line in enumerate(lines, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                target = resolve(root, path, m.group(1))
                if target is None:
                    continue    # outside sim-npu
                n_includes += 1
                trel = os.path.relpath(target, root)
                tlayer = folder_of(root, target)
                where = '%s:%d: includes %s' % (rel, lineno, trel)
                own_folder = (os.path.dirname(target) ==
                              os.path.dirname(path))
                if tlayer == 'include' or own_folder:
                    continue
                if (os.path.basename(target).endswith('-private.h')
                        and tlayer != '.'):
                    errors.append('%s, the private header of %s/' %
                                  (where, tlayer))
                elif tlayer != layer and tlayer not in LAYERS[layer]:
                    errors.append('%s: layer %s may not see layer %s' %
                                  (where, layer, tlayer))
    for e in errors + long_files:
        print(e)
    for rel, why in sorted(LONG_FILES.items()):
        print('note: %s is over %d lines: %s' % (rel, MAX_LINES, why))
    if errors or long_files:
        print('check-layers: %d bad includes, %d files too long' %
              (len(errors), len(long_files)))
        return 1
    print('check-layers: %d files, %d includes inside sim-npu, all '
          'downward' % (n_files, n_includes))
    return 0


if __name__ == '__main__':
    sys.exit(main())
