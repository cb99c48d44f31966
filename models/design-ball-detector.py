#!/usr/bin/env python3
# gst-ax
# Copyright (C) 2026 gst-ax developers
#
# This library is free software; you can redistribute it and/or
# modify it under the terms of the GNU Library General Public
# License as published by the Free Software Foundation; either
# version 2 of the License, or (at your option) any later version.
"""Designs the weights of the ball-detector model and writes its graph
(ball-detector.json) and weights (ball-detector.weights).

The network is designed, not trained: every weight follows from the
geometry of a bright blob on a dark background (see docs/models.md). Only
the Python standard library is needed. Run from anywhere:

    python3 models/design-ball-detector.py

The build does not run this script; the generated files are committed.
"""

import base64  # noqa: F401  (kept for readers who want inline weights)
import json
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
NAME = "ball-detector"

INPUT = 320          # input tensor is INPUT x INPUT RGB
STRIDE = 2           # anchor grid stride, pixels
GRID = INPUT // STRIDE
REACH = 16           # cells looked at on each side of an anchor: blobs up
                     # to 2 * REACH * STRIDE = 64 px across are measured
N_CLASSES = 1

# Brightness threshold: the mask is clamp(GAIN * (Y - THRESHOLD), 0, 1) with
# Y the mean of R, G, B over a MASK_BLOCK x MASK_BLOCK pixel block (one
# pixel here), in [0, 1]. An edge pixel half covered by a white blob sits
# at the threshold, so blob edges are not biased; letterbox padding
# (114/255 = 0.45) stays below it. The cells then average the mask.
MASK_BLOCK = 1
THRESHOLD = 0.5
GAIN = 16.0

# Score logit: SCORE_GAIN * (min(extent, EXTENT_CAP) - ASYM_WEIGHT * asym
# - SCORE_BIAS), where extent = L + R + U + D and asym is the sum of
# relu(|R - L| - ASYM_DEAD_ZONE) and relu(|D - U| - ASYM_DEAD_ZONE), in
# cells. An empty frame gives SCORE_GAIN * -SCORE_BIAS = -7.5, whose
# sigmoid rounds to a score of exactly 0.
EXTENT_CAP = 6.0
ASYM_WEIGHT = 2.0
# asymmetry below this many cells per direction is not penalised: a 6 px
# blob (3 cells) lying across a cell border leaves both anchors nearest
# its centre half a cell asymmetric
ASYM_DEAD_ZONE = 0.5
SCORE_BIAS = 2.5
SCORE_GAIN = 3.0

# Quantisation (real = scale * (q - zero_point)), chosen so the int8
# saturation does the clamping the design needs.
Q_INPUT = (1.0 / 255.0, 0)          # u8
Q_MASK = (1.0 / 255.0, -128)        # [0, 1]
Q_EXTENT = (1.0 / 8.0, -128)        # [0, 31.9] cells
Q_BOXHEAD = (1.0, 0)                # [-128, 127] pixels
Q_ANCHORS = (2.0, -128)             # [0, 510] pixels: the cell corners
                                    # are exact; box_rel's bias adds the
                                    # half cell
Q_OUTPUT = (1.25, -128)             # [0, 318.75] pixels
Q_ASYM = (EXTENT_CAP / 255.0, -128)  # [0, 6] cells: saturates the cap
Q_LOGIT = (1.0 / 16.0, 0)           # [-8, 7.94]
Q_SIGMOID = (1.0 / 256.0, -128)     # [0, 1)
# the score row's codes re-read at the head's scale (see step 8)
SCORE_CODE_GAIN = Q_OUTPUT[0] / Q_SIGMOID[0]
assert Q_SIGMOID[1] == Q_OUTPUT[1]
# dequantisation scale of each output row: boxes in pixels, score in [0, 1)
ROW_SCALES = [Q_OUTPUT[0]] * 4 + [Q_SIGMOID[0]] * N_CLASSES


class Weights:
    def __init__(self):
        self.blob = bytearray()

    def add(self, data):
        off = len(self.blob)
        self.blob += data
        while len(self.blob) % 8:
            self.blob.append(0)
        return {"offset": off, "size": len(data)}


def quantize_weights(rows):
    """rows: per output channel, a flat list of float weights. Returns the
    int8 bytes and per-channel scales; each scale is max|w| / 126 so that
    the values used here (1, 0.5, 2, 4 and their negatives) are exact."""
    data = bytearray()
    scales = []
    for row in rows:
        peak = max(abs(w) for w in row) or 1.0
        scale = peak / 126.0
        scales.append(scale)
        for w in row:
            q = round(w / scale)
            assert -127 <= q <= 127
            assert abs(q * scale - w) < 1e-9, "weight not exact"
            data += struct.pack("b", q)
    return bytes(data), scales


def bias_bytes(values, in_scale, w_scales):
    out = bytearray()
    for v, ws in zip(values, w_scales):
        out += struct.pack("<i", round(v / (in_scale * ws)))
    return bytes(out)


def conv(weights, name, src, dst, kernel, out_ch, rows, bias, in_q, out_q,
         pad=(0, 0, 0, 0), stride=(1, 1), activation="none"):
    wdata, scales = quantize_weights(rows)
    return {
        "name": name,
        "type": "conv2d",
        "inputs": [src],
        "outputs": [dst],
        "attrs": {
            "kernel": list(kernel),
            "stride": list(stride),
            "pad": list(pad),
            "out_channels": out_ch,
            "activation": activation,
        },
        "weights": {"scales": scales, "data": weights.add(wdata)},
        "bias": {"data": weights.add(bias_bytes(bias, in_q[0], scales))},
        "quant": {"scale": out_q[0], "zero_point": out_q[1]},
    }


def design():
    w = Weights()
    ops = []

    # 1. brightness mask of 2x2 blocks, one channel, weights
    # [kh=2][kw=2][ic=3] per output
    taps_mask = MASK_BLOCK * MASK_BLOCK * 3
    g = GAIN / taps_mask
    ops.append(conv(w, "mask", "images", "mask", (MASK_BLOCK, MASK_BLOCK), 1,
                    [[g] * taps_mask], [-GAIN * THRESHOLD], Q_INPUT, Q_MASK,
                    stride=(MASK_BLOCK, MASK_BLOCK)))

    # 2. fraction of bright blocks per STRIDE x STRIDE cell
    pool = STRIDE // MASK_BLOCK
    ops.append({"name": "cells", "type": "avgpool", "inputs": ["mask"],
                "outputs": ["cells"],
                "attrs": {"kernel": [pool, pool], "stride": [pool, pool]}})

    # 3. extents along the row: L (cells left of the anchor, plus half the
    # anchor's own cell) and R; weights [oc][kh=1][kw=15][ic=1]
    taps = 2 * REACH + 1
    left = [1.0 if k < REACH else (0.5 if k == REACH else 0.0)
            for k in range(taps)]
    right = list(reversed(left))
    ops.append(conv(w, "extent_x", "cells", "extent_x", (1, taps), 2,
                    [left, right], [0.0, 0.0], Q_MASK, Q_EXTENT,
                    pad=(0, REACH, 0, REACH)))
    # 4. the same along the column: U and D
    ops.append(conv(w, "extent_y", "cells", "extent_y", (taps, 1), 2,
                    [left, right], [0.0, 0.0], Q_MASK, Q_EXTENT,
                    pad=(REACH, 0, REACH, 0)))
    ops.append({"name": "extents", "type": "concat",
                "inputs": ["extent_x", "extent_y"], "outputs": ["extents"],
                "attrs": {"axis": 3},
                "quant": {"scale": Q_EXTENT[0], "zero_point": Q_EXTENT[1]}})

    # 5. box relative to the anchor, in pixels: channels (dx, dy, w, h) from
    # (L, R, U, D): dx = S/2 (R - L), dy = S/2 (D - U), w = S (L + R),
    # h = S (U + D)
    s = float(STRIDE)
    ops.append(conv(w, "box_rel", "extents", "box_rel", (1, 1), 4,
                    [[-s / 2, s / 2, 0, 0], [0, 0, -s / 2, s / 2],
                     [s, s, 0, 0], [0, 0, s, s]],
                    [s / 2, s / 2, 0.0, 0.0], Q_EXTENT, Q_BOXHEAD))
    # 6. add the anchor centres: box = (cx, cy, w, h)
    ops.append({"name": "box", "type": "add",
                "inputs": ["box_rel", "anchors"], "outputs": ["box"],
                "quant": {"scale": Q_OUTPUT[0], "zero_point": Q_OUTPUT[1]}})

    # 7. score: relu'd asymmetries and the capped extent
    ops.append(conv(w, "asym", "extents", "asym", (1, 1), 5,
                    [[-1, 1, 0, 0], [1, -1, 0, 0], [0, 0, -1, 1],
                     [0, 0, 1, -1], [1, 1, 1, 1]],
                    [-ASYM_DEAD_ZONE] * 4 + [0.0], Q_EXTENT, Q_ASYM,
                    activation="relu"))
    a = -SCORE_GAIN * ASYM_WEIGHT
    ops.append(conv(w, "logit", "asym", "logit", (1, 1), 1,
                    [[a, a, a, a, SCORE_GAIN]], [-SCORE_GAIN * SCORE_BIAS],
                    Q_ASYM, Q_LOGIT))
    ops.append({"name": "score", "type": "sigmoid", "inputs": ["logit"],
                "outputs": ["score"],
                "quant": {"scale": Q_SIGMOID[0],
                          "zero_point": Q_SIGMOID[1]}})
    # 8. carry the score's int8 codes unchanged through the head's scale:
    # at the head's scale a gain of SCORE_CODE_GAIN maps each sigmoid code
    # to itself, so the concat copies it exactly and the output's row scale
    # for the score row turns it back into [0, 1)
    ops.append(conv(w, "score_code", "score", "score_code", (1, 1), 1,
                    [[SCORE_CODE_GAIN]], [0.0], Q_SIGMOID, Q_OUTPUT))

    # 9. YOLOv8 layout: [1, 4 + nc, anchors], anchor = y * GRID + x
    ops.append({"name": "head", "type": "concat",
                "inputs": ["box", "score_code"],
                "outputs": ["head"], "attrs": {"axis": 3},
                "quant": {"scale": Q_OUTPUT[0], "zero_point": Q_OUTPUT[1]}})
    ops.append({"name": "flatten", "type": "reshape", "inputs": ["head"],
                "outputs": ["head_flat"],
                "attrs": {"shape": [1, GRID * GRID, 4 + N_CLASSES]}})
    ops.append({"name": "output", "type": "transpose",
                "inputs": ["head_flat"], "outputs": ["output0"],
                "attrs": {"perm": [0, 2, 1]}})

    # anchor centres (cx, cy, 0, 0) per cell, quantised like the output
    anchors = bytearray()
    for y in range(GRID):
        for x in range(GRID):
            for v in (x * STRIDE, y * STRIDE, 0, 0):
                q = round(v / Q_ANCHORS[0]) + Q_ANCHORS[1]
                assert -128 <= q <= 127
                assert (q - Q_ANCHORS[1]) * Q_ANCHORS[0] == v
                anchors += struct.pack("b", q)

    graph = {
        "format": "simnpu-graph",
        "version": 1,
        "name": NAME,
        "description": (
            "Designed detector of bright blobs on a dark background "
            "(videotestsrc pattern=ball). Output output0 is YOLOv8-style "
            "[1, 4 + nc, anchors] = [1, 5, %d], f32 (dequantised from int8 "
            "with zero point %d and a scale per row: %g for the boxes, 1/256 "
            "for the score): rows 0-3 are the box centre x, centre y, width "
            "and height in input-tensor pixels, row 4 the class score in "
            "[0, 1); "
            "anchor a is grid cell (a %% %d, a / %d) of a %dx%d grid with "
            "stride %d. Input images is u8 NHWC RGB, scale 1/255, zero "
            "point 0. Generated by models/design-ball-detector.py."
            % (GRID * GRID, Q_OUTPUT[1], Q_OUTPUT[0], GRID, GRID, GRID, GRID,
               STRIDE)),
        "labels": ["ball"],
        "weights_file": NAME + ".weights",
        "inputs": [{"name": "images", "shape": [1, INPUT, INPUT, 3],
                    "dtype": "u8", "layout": "NHWC",
                    "scale": Q_INPUT[0], "zero_point": Q_INPUT[1]}],
        "outputs": [{"name": "output0",
                     "shape": [1, 4 + N_CLASSES, GRID * GRID],
                     "dtype": "f32", "layout": "NCHW",
                     "scale": Q_OUTPUT[0], "zero_point": Q_OUTPUT[1],
                     "row_scales": ROW_SCALES}],
        "constants": [{"name": "anchors", "shape": [1, GRID, GRID, 4],
                       "dtype": "i8", "scale": Q_ANCHORS[0],
                       "zero_point": Q_ANCHORS[1],
                       "data": w.add(bytes(anchors))}],
        "ops": ops,
    }
    return graph, w.blob


def main():
    graph, blob = design()
    with open(os.path.join(HERE, NAME + ".json"), "w") as f:
        json.dump(graph, f, indent=1)
        f.write("\n")
    with open(os.path.join(HERE, NAME + ".weights"), "wb") as f:
        f.write(blob)
    print("wrote %s.json and %s.weights (%d bytes)" % (NAME, NAME, len(blob)))


if __name__ == "__main__":
    main()
