#!/usr/bin/env python3
# gst-ax
# Copyright (C) 2026 gst-ax developers
#
# This library is free software; you can redistribute it and/or
# modify it under the terms of the GNU Library General Public
# License as published by the Free Software Foundation; either
# version 2 of the License, or (at your option) any later version.
"""Writes models/yolov8n.json: the layer shapes of YOLOv8n (Ultralytics,
depth 0.33, width 0.25) at 640x640 with 80 classes, as a shape-only graph
(no weights) for simnpu-compile --estimate-only.

Conv blocks are conv2d (batch norm folded) + silu; C2f, SPPF and the
anchor-free Detect head (DFL with 16 bins, decoded to xywh, sigmoid class
scores) are spelled out in the graph's own ops. Output: [1, 84, 8400].
"""

import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
SIZE = 640
NC = 80
REG_MAX = 16
STRIDES = (8, 16, 32)

ops = []
constants = []
shapes = {"images": (1, SIZE, SIZE, 3)}
counter = [0]


def name(prefix):
    counter[0] += 1
    return "%s_%d" % (prefix, counter[0])


def add(op, out_shape):
    ops.append(op)
    shapes[op["outputs"][0]] = out_shape
    return op["outputs"][0]


def conv(x, c2, k=1, s=1, act=True, prefix="conv"):
    n, h, w, _ = shapes[x]
    p = k // 2
    y = name(prefix)
    oh, ow = (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
    add({"name": y, "type": "conv2d", "inputs": [x], "outputs": [y],
         "attrs": {"kernel": [k, k], "stride": [s, s], "pad": [p, p, p, p],
                   "out_channels": c2}}, (n, oh, ow, c2))
    if not act:
        return y
    z = name(prefix + "_silu")
    return add({"name": z, "type": "silu", "inputs": [y], "outputs": [z]},
               (n, oh, ow, c2))


def concat(xs, axis=3):
    y = name("concat")
    shape = list(shapes[xs[0]])
    shape[axis] = sum(shapes[x][axis] for x in xs)
    return add({"name": y, "type": "concat", "inputs": xs, "outputs": [y],
                "attrs": {"axis": axis}}, tuple(shape))


def split(x, sizes, axis=3):
    base = name("split")
    outs = ["%s_%d" % (base, i) for i in range(len(sizes))]
    ops.append({"name": base, "type": "split", "inputs": [x],
                "outputs": outs, "attrs": {"axis": axis,
                                           "sizes": list(sizes)}})
    for o, sz in zip(outs, sizes):
        shape = list(shapes[x])
        shape[axis] = sz
        shapes[o] = tuple(shape)
    return list(outs)


def eltwise(kind, a, b):
    y = name(kind)
    sa, sb = shapes[a], shapes[b]
    rank = max(len(sa), len(sb))
    sa = (1,) * (rank - len(sa)) + sa
    sb = (1,) * (rank - len(sb)) + sb
    return add({"name": y, "type": kind, "inputs": [a, b], "outputs": [y]},
               tuple(max(p, q) for p, q in zip(sa, sb)))


def c2f(x, c2, n, shortcut):
    c = c2 // 2
    y = conv(x, 2 * c, 1, prefix="c2f_cv1")
    parts = split(y, (c, c))
    last = parts[1]
    for _ in range(n):
        h = conv(last, c, 3, prefix="bottleneck_cv1")
        h = conv(h, c, 3, prefix="bottleneck_cv2")
        last = eltwise("add", last, h) if shortcut else h
        parts.append(last)
    return conv(concat(parts), c2, 1, prefix="c2f_cv2")


def sppf(x, c2, k=5):
    c = shapes[x][3] // 2
    y = conv(x, c, 1, prefix="sppf_cv1")
    pools = [y]
    for _ in range(3):
        p = name("sppf_pool")
        n, h, w, ch = shapes[pools[-1]]
        pools.append(add({"name": p, "type": "maxpool",
                          "inputs": [pools[-1]], "outputs": [p],
                          "attrs": {"kernel": [k, k], "stride": [1, 1],
                                    "pad": [k // 2] * 4}}, (n, h, w, ch)))
    return conv(concat(pools), c2, 1, prefix="sppf_cv2")


def upsample(x):
    y = name("upsample")
    n, h, w, c = shapes[x]
    return add({"name": y, "type": "resize", "inputs": [x], "outputs": [y],
                "attrs": {"scale": [2, 2]}}, (n, 2 * h, 2 * w, c))


def reshape(x, shape):
    y = name("reshape")
    return add({"name": y, "type": "reshape", "inputs": [x], "outputs": [y],
                "attrs": {"shape": list(shape)}}, tuple(shape))


def transpose(x, perm):
    y = name("transpose")
    return add({"name": y, "type": "transpose", "inputs": [x],
                "outputs": [y], "attrs": {"perm": list(perm)}},
               tuple(shapes[x][p] for p in perm))


def constant(cname, shape):
    constants.append({"name": cname, "shape": list(shape), "dtype": "i8"})
    shapes[cname] = tuple(shape)
    return cname


def build():
    x = conv("images", 16, 3, 2)                # 0  P1/2
    x = conv(x, 32, 3, 2)                       # 1  P2/4
    x = c2f(x, 32, 1, True)                     # 2
    x = conv(x, 64, 3, 2)                       # 3  P3/8
    p3 = c2f(x, 64, 2, True)                    # 4
    x = conv(p3, 128, 3, 2)                     # 5  P4/16
    p4 = c2f(x, 128, 2, True)                   # 6
    x = conv(p4, 256, 3, 2)                     # 7  P5/32
    x = c2f(x, 256, 1, True)                    # 8
    p5 = sppf(x, 256)                           # 9
    x = concat([upsample(p5), p4])              # 10, 11
    h4 = c2f(x, 128, 1, False)                  # 12
    x = concat([upsample(h4), p3])              # 13, 14
    o3 = c2f(x, 64, 1, False)                   # 15 (P3 out)
    x = concat([conv(o3, 64, 3, 2), h4])        # 16, 17
    o4 = c2f(x, 128, 1, False)                  # 18 (P4 out)
    x = concat([conv(o4, 128, 3, 2), p5])       # 19, 20
    o5 = c2f(x, 256, 1, False)                  # 21 (P5 out)

    # Detect: per level a box branch (4 * REG_MAX) and a class branch (NC)
    c2 = max(16, shapes[o3][3] // 4, 4 * REG_MAX)
    c3 = max(shapes[o3][3], min(NC, 100))
    levels = []
    for feat in (o3, o4, o5):
        b = conv(conv(feat, c2, 3, prefix="box"), c2, 3, prefix="box")
        b = conv(b, 4 * REG_MAX, 1, act=False, prefix="box_out")
        c = conv(conv(feat, c3, 3, prefix="cls"), c3, 3, prefix="cls")
        c = conv(c, NC, 1, act=False, prefix="cls_out")
        n, h, w, _ = shapes[b]
        levels.append(reshape(concat([b, c]), (1, h * w, 4 * REG_MAX + NC)))
    anchors = sum(shapes[lv][1] for lv in levels)
    head = transpose(concat(levels, axis=1), (0, 2, 1))
    box, cls = split(head, (4 * REG_MAX, NC), axis=1)

    # DFL: softmax over the 16 bins of each side, expectation by a 1x1 conv
    d = reshape(box, (1, 4, REG_MAX, anchors))
    d = transpose(d, (0, 1, 3, 2))
    sm = name("dfl_softmax")
    d = add({"name": sm, "type": "softmax", "inputs": [d], "outputs": [sm],
             "attrs": {"axis": 3}}, shapes[d])
    d = conv(d, 1, 1, act=False, prefix="dfl")
    d = reshape(d, (1, 4, anchors))
    lt, rb = split(d, (2, 2), axis=1)
    # xywh: centre = anchor + (rb - lt) / 2, size = lt + rb, times stride
    half = constant("minus_half", (1, 1, 1))
    centre = eltwise("add", constant("anchor_points", (1, 2, anchors)),
                     eltwise("mul", eltwise("add", rb,
                                            eltwise("mul", lt, constant(
                                                "minus_one", (1, 1, 1)))),
                             half))
    size = eltwise("add", lt, rb)
    strides = constant("strides", (1, 1, anchors))
    xywh = concat([eltwise("mul", centre, strides),
                   eltwise("mul", size, strides)], axis=1)
    sig = name("cls_sigmoid")
    scores = add({"name": sig, "type": "sigmoid", "inputs": [cls],
                  "outputs": [sig]}, shapes[cls])
    out = concat([xywh, scores], axis=1)
    # the declared graph output
    ops[-1]["outputs"] = ["output0"]
    shapes["output0"] = shapes[out]
    return anchors


def main():
    anchors = build()
    graph = {
        "format": "simnpu-graph",
        "version": 1,
        "name": "yolov8n",
        "description": (
            "YOLOv8n layer shapes at %dx%d, %d classes, shape only (no "
            "weights): compile with --estimate-only. Generated by "
            "models/make-yolov8n.py." % (SIZE, SIZE, NC)),
        "estimate_only": True,
        "inputs": [{"name": "images", "shape": [1, SIZE, SIZE, 3],
                    "dtype": "i8", "layout": "NHWC", "scale": 1.0 / 255,
                    "zero_point": -128}],
        "outputs": [{"name": "output0", "shape": [1, 4 + NC, anchors],
                     "dtype": "i8", "layout": "NCHW"}],
        "constants": constants,
        "ops": ops,
    }
    with open(os.path.join(HERE, "yolov8n.json"), "w") as f:
        json.dump(graph, f, indent=1)
        f.write("\n")
    print("wrote yolov8n.json: %d ops, %d anchors" % (len(ops), anchors))


if __name__ == "__main__":
    main()
